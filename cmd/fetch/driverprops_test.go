package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// sessionDriver is a fake driver that opens sessions (proto.Sessioner)
// and records what it was asked.
type sessionDriver struct {
	fetched  int
	sessions []string // the URLs, with the terminal type
}

func (d *sessionDriver) Fetch(context.Context, *uri.URL, *proto.Request) (*proto.Response, error) {
	d.fetched++
	return nil, proto.ErrNotFound
}

func (d *sessionDriver) Session(ctx context.Context, u *uri.URL, req *proto.Request, in, out *os.File, termType string, notice io.Writer) error {
	d.sessions = append(d.sessions, u.String()+" "+termType)
	return nil
}

// TestInteractiveSessioner: --interactive opens a session with the driver
// of a URL that opens sessions (proto.Sessioner), whatever its scheme;
// without --interactive the URL is fetched.
func TestInteractiveSessioner(t *testing.T) {
	d := &sessionDriver{}
	reg := fetch.NewRegistry()
	reg.Register("x-session", d)
	tty, err := os.CreateTemp(t.TempDir(), "tty")
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	var out, errb bytes.Buffer
	getenv := func(k string) string { return map[string]string{"TERM": "vt100"}[k] }
	e := &env{in: strings.NewReader(""), out: &out, err: &errb, getenv: getenv, registry: reg, stdin: tty, stdout: tty, stdinTTY: true}
	if code := execute(t.Context(), []string{"get", "--interactive", "x-session://127.0.0.1/"}, e); code != fetch.ExitOK || d.fetched != 0 || len(d.sessions) != 1 || d.sessions[0] != "x-session://127.0.0.1/ vt100" {
		t.Errorf("get --interactive: exit %d, %d fetches, sessions %q; want one session\n%s", code, d.fetched, d.sessions, errb.String())
	}
	if code := execute(t.Context(), []string{"get", "x-session://127.0.0.1/"}, e); code == fetch.ExitOK || d.fetched != 1 || len(d.sessions) != 1 {
		t.Errorf("get: exit %d, %d fetches, %d sessions; want one failed fetch\n%s", code, d.fetched, len(d.sessions), errb.String())
	}
}

// gatewayDriver is a fake driver with a gateway template (proto.Gateway)
// that accepts the template "ok" only.
type gatewayDriver struct{ sessionDriver }

var errTemplate = errors.New("not ok")

func (d *gatewayDriver) CheckTemplate(tmpl string) error {
	if tmpl != "ok" {
		return errTemplate
	}
	return nil
}

// TestCheckGatewaysDriver: a --gateway template is checked by the driver
// of its scheme when it has gateways (proto.Gateway), whatever its name;
// a scheme whose driver has none is a usage error.
func TestCheckGatewaysDriver(t *testing.T) {
	reg := fetch.NewRegistry()
	reg.Register("x-gw", &gatewayDriver{})
	reg.Register("x-session", &sessionDriver{})
	for _, tt := range []struct {
		scheme, tmpl string
		ok           bool
	}{
		{"x-gw", "ok", true},
		{"X-GW", "ok", true},
		{"x-gw", "bad", false},
		{"x-session", "ok", false},
		{"x-none", "ok", false},
	} {
		err := checkGateways(reg, map[string]string{tt.scheme: tt.tmpl})
		if (err == nil) != tt.ok || err != nil && codeOf(err) != fetch.ExitUsage {
			t.Errorf("checkGateways(%s=%s) = %v, want ok %v or a usage error", tt.scheme, tt.tmpl, err, tt.ok)
		}
	}
}

// listingDriver is a fake driver whose directory response carries its
// notes in Response.Listing alone.
type listingDriver struct{ listing *proto.Listing }

func (d *listingDriver) Fetch(context.Context, *uri.URL, *proto.Request) (*proto.Response, error) {
	return &proto.Response{Kind: proto.KindDirectory, Body: io.NopCloser(strings.NewReader("")), Entries: []proto.Entry{{Name: "a", Type: proto.EntryFile}}, Listing: d.listing}, nil
}

// TestListingNotesTyped: fetch get reads a listing's notes from
// Response.Listing, whatever the driver: --json shows the unparsed lines
// (an empty list when there are none), the NLST fallback and the
// truncation; the unparsed lines are warned about and a listing not known
// to be whole exits with ExitPartial, with --retry and -Z too.
func TestListingNotesTyped(t *testing.T) {
	for _, flag := range []string{"--retry=0", "--retry=2", "-Z"} {
		testListingNotes(t, flag)
	}
}

func testListingNotes(t *testing.T, flag string) {
	for _, tt := range []struct {
		listing *proto.Listing
		want    string // the notes in the JSON document
		code    int
	}{
		{&proto.Listing{Unparsed: []string{"??"}, Fallback: true, Truncated: "451 cut"}, `{"nlst_fallback":true,"truncated":"451 cut","unparsed":["??"]}`, fetch.ExitPartial},
		{&proto.Listing{}, `{"unparsed":[]}`, fetch.ExitOK},
		{nil, `{}`, fetch.ExitOK},
	} {
		reg := fetch.NewRegistry()
		reg.Register("x-list", &listingDriver{tt.listing})
		var out, errb bytes.Buffer
		e := &env{in: strings.NewReader(""), out: &out, err: &errb, getenv: func(string) string { return "" }, registry: reg}
		code := execute(t.Context(), []string{"get", flag, "--json", "x-list://127.0.0.1/"}, e)
		var doc map[string]any
		if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
			t.Fatalf("%s: %v", out.String(), err)
		}
		notes := map[string]any{}
		for _, k := range []string{"unparsed", "nlst_fallback", "truncated"} {
			if v, ok := doc[k]; ok {
				notes[k] = v
			}
		}
		got, _ := json.Marshal(notes)
		warned := strings.Contains(errb.String(), "listing line fits no known layout: \"??\"")
		if string(got) != tt.want || code != tt.code || warned != (code != fetch.ExitOK) {
			t.Errorf("%s, %+v: notes %s, exit %d, want %s, exit %d\n%s", flag, tt.listing, got, code, tt.want, tt.code, errb.String())
		}
	}
}
