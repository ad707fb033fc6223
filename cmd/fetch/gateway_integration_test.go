package main

import (
	"os"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/internal/testrig/servertest"
)

// Issue 7 acceptance: wais and prospero URLs (RFC 1738 sections 3.9 and
// 3.11) are fetched through a --gateway template pointing at the local
// nginx; the gateway URL goes through the safety check like any other, and
// without a gateway the same URLs exit 7.
func TestIntegrationGateways(t *testing.T) {
	s := servertest.Get(t, servertest.NGINX)
	read := func(rel string) string {
		b, err := os.ReadFile(servertest.Fixture(t, rel))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for _, tc := range []struct {
		gateway, url, want, redirect string
	}{
		{ // wais://host/database?search
			"wais=http://" + s.Addr + "/{database}/a.txt?q={search}",
			"wais://127.0.0.1:2100/dir?some%20words",
			read("www/dir/a.txt"),
			"/dir/a.txt?q=some%20words",
		},
		{ // wais://host/database/wtype/wpath
			"wais=http://" + s.Addr + "/{database}/{wpath}",
			"wais://127.0.0.1:2100/dir/TEXT/a.txt",
			read("www/dir/a.txt"),
			"/dir/a.txt",
		},
		{ // prospero://host/hsoname;field=value
			"prospero=http://" + s.Addr + "/{hsoname}?v={field:OBJECT-VERSION}",
			"prospero://127.0.0.1:2100//dir/sub/b.txt;OBJECT-VERSION=3",
			read("www/dir/sub/b.txt"),
			"//dir/sub/b.txt?v=3", // the hsoname keeps its leading "/"; nginx merges the slashes
		},
	} {
		r := runArgs(t, nil, "", "get", "-v", "--gateway", tc.gateway, tc.url)
		if r.code != fetch.ExitOK || r.out != tc.want {
			t.Errorf("%s via %s: exit %d, body %q, want %q\n%s", tc.url, tc.gateway, r.code, r.out, tc.want, r.err)
			continue
		}
		if !strings.Contains(r.err, "* redirect (gateway) to http://"+s.Addr+tc.redirect) {
			t.Errorf("%s: the trace does not show the gateway URL %s:\n%s", tc.url, tc.redirect, r.err)
		}
		if r := runArgs(t, nil, "", "get", tc.url); r.code != fetch.ExitNoAccess {
			t.Errorf("%s without a gateway: exit %d, want %d", tc.url, r.code, fetch.ExitNoAccess)
		}
	}
}
