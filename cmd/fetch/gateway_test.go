package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/fetch"
)

// A --gateway template is checked with the flags: a bad one is a usage
// error (exit 2) before anything is fetched.
func TestGatewayFlagChecked(t *testing.T) {
	for _, tc := range []struct {
		gateway string
		code    int
	}{
		{"wais=http://127.0.0.1:1/{nope}", fetch.ExitUsage},        // unknown placeholder
		{"gopher=http://127.0.0.1:1/{database}", fetch.ExitUsage},  // no gateway for gopher URLs
		{"prospero=http://127.0.0.1:1/{field:}", fetch.ExitUsage},  // field without a name
		{"wais=http://127.0.0.1:25/{database}", fetch.ExitRefused}, // valid; the gateway URL is then refused
	} {
		var out, errb bytes.Buffer
		e := &env{in: strings.NewReader(""), out: &out, err: &errb, getenv: func(string) string { return "" }}
		code := execute(context.Background(), []string{"get", "--gateway", tc.gateway, "wais://127.0.0.1:2100/db?q"}, e)
		if code != tc.code {
			t.Errorf("--gateway %q: exit %d, want %d\n%s", tc.gateway, code, tc.code, errb.String())
		}
	}
}
