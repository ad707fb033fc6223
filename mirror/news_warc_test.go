package mirror

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch/fetchtest"
	"github.com/rfc1738/fetch/internal/testrig/warctest"
	"github.com/rfc1738/fetch/proto/nntp"
	"github.com/rfc1738/fetch/uri"
	"github.com/rfc1738/fetch/warc"
)

// warcNews is the mirror's view of proto/nntp with a WARC writer, as
// fetch.Client gives it when Client.WARC is set.
type warcNews struct {
	newsFetcher
	w *warc.Writer
}

func (f warcNews) NewsWARC() *warc.Writer { return f.w }

// mirrorNewsWARC runs a news mirror of raw into dir that archives into a
// new WARC file NAME.warc.gz, and returns its records after the warcinfo.
func mirrorNewsWARC(t *testing.T, raw, dir, name string, jobs int) (*Summary, []warctest.Record) {
	t.Helper()
	w, err := warc.Create(warc.Options{Name: name})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sum, err := Run(ctx, warcNews{newsFetcher{&nntp.Driver{}}, w}, uri.MustParse(raw), dir, newsRunOpts(jobs))
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatalf("Run(%s) = %v", raw, err)
	}
	files := w.Files() // those with a record written
	if len(files) == 0 {
		return sum, nil
	}
	if len(files) != 1 {
		t.Fatalf("WARC files %q, want one", files)
	}
	recs := warctest.Read(t, files[0])
	warctest.CheckDigests(t, recs)
	if len(recs) == 0 || recs[0].Get("WARC-Type") != "warcinfo" {
		t.Fatalf("no warcinfo record first")
	}
	return sum, recs[1:]
}

// TestNewsMirrorWARC: every article the news mirror stores is one
// resource record of type message/news under its nntp URL, holding the
// bytes of the stored file; a crosspost is recorded once (its links in
// the other group add no record); a run that fetches nothing new writes
// no record, and a later one only the new articles.
func TestNewsMirrorWARC(t *testing.T) {
	for _, jobs := range []int{1, 3} {
		t.Run(fmt.Sprintf("j=%d", jobs), func(t *testing.T) {
			srv := &fetchtest.NNTP{Over: "OVER"}
			fillNews(srv)
			srv.Start(t)
			dir := t.TempDir()
			name := filepath.Join(t.TempDir(), "news")
			raw := "nntp://" + srv.Addr + "/n.*"
			before := time.Now().Add(-time.Second)
			sum, recs := mirrorNewsWARC(t, raw, dir, name, jobs)
			if sum.New != 36 || sum.Failed != 0 {
				t.Fatalf("first run: %+v", sum)
			}
			ids := checkNewsRecords(t, recs, dir, srv.Addr, before)
			if len(recs) != 30 || len(ids) != 30 {
				t.Fatalf("%d records of %d articles; want 30 of 30 (the 6 crossposts once)", len(recs), len(ids))
			}

			// Nothing new: no record.
			_, recs = mirrorNewsWARC(t, raw, dir, name, jobs)
			if len(recs) != 0 {
				t.Errorf("second run wrote %d records, want none", len(recs))
			}

			// Two new articles, one crossposted: two records.
			srv.Post(article(100, "n.a", "n.b"), []string{"n.a", "n.b"}, []int64{19, 19})
			srv.Post(article(101, "n.b"), []string{"n.b"}, []int64{20})
			sum, recs = mirrorNewsWARC(t, raw, dir, name, jobs)
			if sum.New != 3 {
				t.Errorf("third run: %+v", sum)
			}
			ids = checkNewsRecords(t, recs, dir, srv.Addr, before)
			if len(recs) != 2 || !ids["<m100@x>"] || !ids["<m101@x>"] {
				t.Errorf("third run: %d records of %v, want m100 and m101", len(recs), ids)
			}
		})
	}
}

// checkNewsRecords checks that each record is a message/news resource
// whose URL names a stored article with the same bytes, and returns the
// Message-IDs recorded; a Message-ID recorded twice is an error.
func checkNewsRecords(t *testing.T, recs []warctest.Record, dir, server string, since time.Time) map[string]bool {
	t.Helper()
	ids := map[string]bool{}
	for _, r := range recs {
		u := r.Get("WARC-Target-URI")
		if r.Get("WARC-Type") != "resource" || r.Get("Content-Type") != "message/news" {
			t.Errorf("%s: %s record of %s", u, r.Get("WARC-Type"), r.Get("Content-Type"))
			continue
		}
		rest, ok := strings.CutPrefix(u, "nntp://"+server+"/")
		group, num, ok2 := strings.Cut(rest, "/")
		if !ok || !ok2 {
			t.Errorf("target URI %q is not nntp://%s/GROUP/N", u, server)
			continue
		}
		stored, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(strings.ReplaceAll(group, ".", "/")), num))
		if err != nil || !bytes.Equal(stored, r.Block) {
			t.Errorf("%s: record of %d bytes, stored file %d bytes (%v)", u, len(r.Block), len(stored), err)
		}
		d, err := time.Parse(time.RFC3339, r.Get("WARC-Date"))
		if err != nil || d.Before(since) || d.After(time.Now()) {
			t.Errorf("%s: WARC-Date %q (%v)", u, r.Get("WARC-Date"), err)
		}
		id := fetchtest.MessageID(string(r.Block))
		if ids[id] {
			t.Errorf("%s recorded twice", id)
		}
		ids[id] = true
	}
	return ids
}

// TestNewsMirrorWARCFails: an article the WARC writer cannot take (here a
// writer already closed) is a failed entry, not a silent loss.
func TestNewsMirrorWARCFails(t *testing.T) {
	srv := &fetchtest.NNTP{Over: "OVER"}
	srv.Post(article(1, "n.a"), []string{"n.a"}, []int64{1})
	srv.Post(article(2, "n.a"), []string{"n.a"}, []int64{2})
	srv.Start(t)
	w, err := warc.Create(warc.Options{Name: filepath.Join(t.TempDir(), "closed")})
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sum, err := Run(ctx, warcNews{newsFetcher{&nntp.Driver{}}, w}, uri.MustParse("nntp://"+srv.Addr+"/n.a"), t.TempDir(), newsRunOpts(1))
	if !errors.Is(err, ErrPartial) || sum.Failed != 2 {
		t.Fatalf("Run = %v, %+v; want ErrPartial and 2 failed", err, sum)
	}
	for _, e := range sum.Entries {
		if !strings.Contains(e.Reason, "warc") {
			t.Errorf("%s: reason %q does not name the archive", e.Path, e.Reason)
		}
	}
}
