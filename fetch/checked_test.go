package fetch

import (
	"errors"
	"io"
	"testing"

	"github.com/rfc1738/fetch/internal/probe"
	"github.com/rfc1738/fetch/safety"
	"github.com/rfc1738/fetch/uri"
)

// Issue 31, part 4: a URL checked with Client.Check is fetched by
// FetchChecked without a second evaluation, however often it is fetched
// (the command's --retry); the target of a redirect is evaluated as
// always, and a Checked of another client is evaluated again under this
// client's policy.
func TestCheckThenFetchChecked(t *testing.T) {
	srv := redirectServer(t)
	c, _, _ := newClient(nil)
	ck, findings, err := c.Check(uri.MustParse(srv.URL + "/redir-ok"))
	if err != nil || ck == nil || ck.URL().String() != srv.URL+"/redir-ok" {
		t.Fatalf("Check = %v, %v, %v", ck, findings, err)
	}
	other, _, _ := newClient(nil)
	tests := []struct {
		name  string
		c     *Client
		evals int64
	}{
		{"first fetch", c, 1},  // the redirect's target only
		{"second fetch", c, 1}, // a retry: the same
		{"another client", other, 2},
	}
	for _, tt := range tests {
		n := probe.Start()
		resp, err := tt.c.FetchChecked(t.Context(), ck, nil)
		probe.Stop()
		if err != nil {
			t.Fatalf("%s: FetchChecked = %v", tt.name, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(b) != "ok" || len(resp.Redirects) != 1 {
			t.Errorf("%s: FetchChecked = %q via %v", tt.name, b, resp.Redirects)
		}
		if got := n.Check.Load(); got != tt.evals {
			t.Errorf("%s: %d policy evaluations, want %d", tt.name, got, tt.evals)
		}
	}

	// A refusal: no Checked, the policy's findings, a refusal error.
	ck, findings, err = c.Check(uri.MustParse("ftp://u:pw@127.0.0.1:6379/x"))
	if ck != nil || !errors.Is(err, safety.ErrRefused) || ExitCode(err) != ExitRefused {
		t.Errorf("Check(port 6379) = %v, %v, want a refusal", ck, err)
	}
	var warned bool
	for _, f := range findings {
		warned = warned || f.Rule == safety.RulePasswordInURL
	}
	if !warned {
		t.Errorf("Check(port 6379) findings = %v, want password-in-url among them", findings)
	}
}
