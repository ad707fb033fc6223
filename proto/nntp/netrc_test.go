package nntp

import (
	"reflect"
	"testing"
)

func TestParseNetrc(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []netrcEntry
	}{
		{"one line", "machine news.example login reader password secret",
			[]netrcEntry{{"news.example", "reader", "secret", true}}},
		{"several lines, account ignored", "machine a\n  login u1\n  account acct\n  password p1\nmachine b login u2\n",
			[]netrcEntry{{"a", "u1", "p1", true}, {"b", "u2", "", false}}},
		{"default is never returned", "default login anonymous password me@\nmachine a login u password p",
			[]netrcEntry{{"a", "u", "p", true}}},
		{"values after default do not leak into the previous machine", "machine a login u\ndefault password leak",
			[]netrcEntry{{"a", "u", "", false}}},
		{"quoted tokens", `machine "a b" login "x\"y" password "p w"`,
			[]netrcEntry{{"a b", `x"y`, "p w", true}}},
		{"macdef body skipped", "macdef init\ncd /pub\nmachine fake login no\n\nmachine real login yes password p\n",
			[]netrcEntry{{"real", "yes", "p", true}}},
		{"macdef with CR LF", "macdef init\r\nmachine fake\r\n\r\nmachine real login yes\r\n",
			[]netrcEntry{{"real", "yes", "", false}}},
		{"truncated", "machine", []netrcEntry{{"", "", "", false}}},
		{"empty", "", nil},
	}
	for _, tt := range tests {
		if got := parseNetrc(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: parseNetrc(%q) = %+v, want %+v", tt.name, tt.in, got, tt.want)
		}
	}
}

func TestNetrcLookup(t *testing.T) {
	entries := parseNetrc("machine News.Example login a password 1\nmachine news.example login b password 2\n")
	tests := []struct {
		host, login, wantLogin string
		ok                     bool
	}{
		{"news.example", "", "a", true},
		{"NEWS.EXAMPLE", "b", "b", true},
		{"news.example", "c", "", false},
		{"other", "", "", false},
	}
	for _, tt := range tests {
		e, ok := netrcLookup(entries, tt.host, tt.login)
		if ok != tt.ok || e.login != tt.wantLogin {
			t.Errorf("netrcLookup(%q, %q) = %+v, %v", tt.host, tt.login, e, ok)
		}
	}
}
