package nntp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/rfc1738/fetch/internal/mbox"
	"github.com/rfc1738/fetch/proto"
)

// errNoOverview reports a server that refuses both OVER and XOVER.
var errNoOverview = errors.New("nntp: server has no overview")

// summary selects the target's group and lists its most recent articles
// (at most MaxArticles) from the overview database: OVER (RFC 3977
// section 8.3), else XOVER (RFC 2980 section 2.8), else one HEAD per
// article for the last MaxHeadFallback articles. Body holds the summary in
// overview format, one line per article.
func (d *Driver) summary(ctx context.Context, c *client, t *target) (*proto.Response, error) {
	op := "GROUP " + t.group
	_, msg, err := c.cmd(ctx, StatusGroupSelected, "%s", op)
	if err != nil {
		return nil, err
	}
	g, err := parseGroupReply(msg)
	if err != nil {
		return nil, &proto.ProtocolError{Proto: "nntp", Msg: op + ": " + err.Error()}
	}
	info := map[string]any{"group": t.group, "count": g.Count, "low": g.Low, "high": g.High}
	var raw bytes.Buffer
	var ovs []overview
	if g.Count > 0 && g.High >= g.Low && g.High > 0 {
		first := max(g.Low, g.High-int64(orDefault(d.MaxArticles, DefaultMaxArticles))+1)
		var method string
		var bad int
		ovs, method, bad, err = d.overview(ctx, c, first, g.High, &raw)
		if errors.Is(err, errNoOverview) {
			first = max(g.Low, g.High-int64(orDefault(d.MaxHeadFallback, DefaultMaxHeadFallback))+1)
			method = "HEAD"
			ovs, err = d.headSummary(ctx, c, first, g.High, &raw)
		}
		if err != nil {
			return nil, err
		}
		info["method"], info["first"], info["truncated"] = method, first, first > g.Low
		if bad > 0 {
			info["malformed_lines"] = bad
		}
	}
	c.quit()
	entries := make([]proto.Entry, 0, len(ovs))
	for _, ov := range ovs {
		entries = append(entries, ov.entry(t.articleURL(ov.Number)))
	}
	return &proto.Response{
		Kind:      proto.KindDirectory,
		Body:      io.NopCloser(bytes.NewReader(raw.Bytes())),
		Size:      int64(raw.Len()),
		MediaType: "text/plain",
		Name:      t.group,
		Entries:   entries,
		Info:      info,
	}, nil
}

// overview reads the overview of articles first to last (client.overview)
// into raw; malformed lines are skipped and counted.
func (d *Driver) overview(ctx context.Context, c *client, first, last int64, raw *bytes.Buffer) ([]overview, string, int, error) {
	var ovs []overview
	bad := 0
	verb, err := c.overview(ctx, first, last, orDefault(d.MaxListBytes, DefaultMaxListBytes), func(line []byte) error {
		ov, err := parseOverview(string(line))
		if err != nil {
			bad++
			return nil
		}
		ovs = append(ovs, ov)
		raw.Write(line)
		raw.WriteByte('\n')
		return nil
	})
	return ovs, verb, bad, err
}

// overview asks for the overview of articles first to last with OVER, or
// XOVER when CAPABILITIES does not list OVER or OVER is refused as unknown
// (500, 501) or unsupported (503), and calls fn with each line. It returns
// the verb asked, and errNoOverview when both are refused that way. A
// range without articles (423 or 420, see emptyRange) gives no lines.
func (c *client) overview(ctx context.Context, first, last, maxBytes int64, fn func(line []byte) error) (string, error) {
	caps, err := c.capabilities(ctx)
	if err != nil {
		return "", err
	}
	verbs := []string{"OVER", "XOVER"}
	if _, ok := caps["OVER"]; caps != nil && !ok {
		verbs = verbs[1:]
	}
	for _, verb := range verbs {
		op := fmt.Sprintf("%s %d-%d", verb, first, last)
		code, _, err := c.cmd(ctx, StatusOverviewFollows, "%s", op)
		switch {
		case err == nil:
		case emptyRange(code):
			return verb, nil
		case code == StatusUnknownCommand || code == StatusSyntaxError || code == StatusNotSupported:
			continue
		default:
			return verb, err
		}
		return verb, c.readBlock(ctx, op, int(min(last-first+1, 1<<30)), maxBytes, fn)
	}
	return "", errNoOverview
}

// headSummary builds the summary from one HEAD per article (RFC 3977
// section 6.2.2); numbers with no article (423) are skipped.
func (d *Driver) headSummary(ctx context.Context, c *client, first, last int64, raw *bytes.Buffer) ([]overview, error) {
	var ovs []overview
	maxHeader := int64(orDefault(d.MaxHeaderBytes, DefaultMaxHeaderBytes))
	var block strings.Builder
	for n := first; n >= first && n <= last; n++ { // n >= first: no wrap past MaxInt64
		op := "HEAD " + strconv.FormatInt(n, 10)
		code, _, err := c.cmd(ctx, StatusHeadFollows, "%s", op)
		switch {
		case err == nil:
		case code == StatusNoSuchNumber || code == StatusNoCurrentArticle:
			continue
		default:
			return nil, err
		}
		block.Reset()
		err = c.readBlock(ctx, op, 0, maxHeader, func(line []byte) error {
			block.Write(line)
			block.WriteByte('\n')
			return nil
		})
		if err != nil {
			return nil, err
		}
		ov := overviewFromHeader(n, mbox.Fields(block.String()))
		ovs = append(ovs, ov)
		raw.WriteString(ov.line())
		raw.WriteByte('\n')
	}
	return ovs, nil
}

// groups lists every group: LIST ACTIVE (RFC 3977 section 7.6.3), or the
// bare LIST of RFC 977 when LIST ACTIVE is unknown, with descriptions from
// LIST NEWSGROUPS (section 7.6.6) when the server has them. Entries are
// sorted by name; Body holds the LIST ACTIVE lines.
func (d *Driver) groups(ctx context.Context, c *client, t *target) (*proto.Response, error) {
	maxLines, maxBytes := orDefault(d.MaxGroups, DefaultMaxGroups), orDefault(d.MaxListBytes, DefaultMaxListBytes)
	op := "LIST ACTIVE"
	code, _, err := c.cmd(ctx, StatusListFollows, "%s", op)
	if code == StatusUnknownCommand || code == StatusSyntaxError {
		op = "LIST"
		_, _, err = c.cmd(ctx, StatusListFollows, "%s", op)
	}
	if err != nil {
		return nil, err
	}
	var raw bytes.Buffer
	var groups []ActiveGroup
	index := map[string]int{}
	bad := 0
	err = c.readBlock(ctx, op, maxLines, maxBytes, func(line []byte) error {
		g, err := parseActive(string(line))
		if err != nil {
			bad++
			return nil
		}
		if _, dup := index[g.Name]; !dup {
			index[g.Name] = len(groups)
			groups = append(groups, g)
		}
		raw.Write(line)
		raw.WriteByte('\n')
		return nil
	})
	if err != nil {
		return nil, err
	}
	descs := make([]string, len(groups))
	_, _, err = c.cmd(ctx, StatusListFollows, "LIST NEWSGROUPS")
	var re *ReplyError
	switch {
	case errors.As(err, &re):
		// No descriptions on this server: the list stands without them.
	case err != nil:
		return nil, err
	default:
		err = c.readBlock(ctx, "LIST NEWSGROUPS", maxLines, maxBytes, func(line []byte) error {
			name, desc, ok := parseNewsgroups(string(line))
			if i, found := index[name]; ok && found {
				descs[i] = desc
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	c.quit()
	entries := make([]proto.Entry, len(groups))
	for i, g := range groups {
		entries[i] = g.entry(t.groupURL(g.Name), descs[i])
	}
	slices.SortFunc(entries, func(a, b proto.Entry) int { return strings.Compare(a.Name, b.Name) })
	info := map[string]any{"groups": len(entries)}
	if bad > 0 {
		info["malformed_lines"] = bad
	}
	return &proto.Response{
		Kind:      proto.KindDirectory,
		Body:      io.NopCloser(bytes.NewReader(raw.Bytes())),
		Size:      int64(raw.Len()),
		MediaType: "text/plain",
		Entries:   entries,
		Info:      info,
	}, nil
}
