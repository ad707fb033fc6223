package nntp

import (
	"errors"
	"reflect"
	"testing"

	"github.com/rfc1738/fetch/internal/mbox"
)

var overviewTests = []struct {
	in   string
	want overview
	ok   bool
}{
	// RFC 3977 section 8.3.3, the example of OVER: all eight fields.
	{"3000234\tI am just a test article\t\"Demo User\" <nobody@example.com>\t6 Oct 1998 04:38:40 -0500\t<45223423@example.com>\t<45454@example.net>\t1234\t17",
		overview{3000234, "I am just a test article", "\"Demo User\" <nobody@example.com>", "6 Oct 1998 04:38:40 -0500", "<45223423@example.com>", "<45454@example.net>", 1234, 17}, true},
	// RFC 3977 section 8.3.2: fields after :lines (Xref:full) are extra.
	{"7\ts\tf\td\t<m@x>\t\t10\t2\tXref: host g:7",
		overview{7, "s", "f", "d", "<m@x>", "", 10, 2}, true},
	// RFC 3977 section 8.3.2: empty fields stay empty; :bytes and :lines
	// may be empty.
	{"1\t\t\t\t\t\t\t", overview{1, "", "", "", "", "", -1, -1}, true},
	// Some servers drop trailing empty fields.
	{"12\tonly a subject", overview{12, "only a subject", "", "", "", "", -1, -1}, true},
	// RFC 2980 section 2.8: XOVER lines have the same form.
	{"42\tRe: x\ta@b\tMon, 1 Jan 2001 00:00:00 GMT\t<c@d>\t<e@f> <g@h>\tnot-a-number\t-3",
		overview{42, "Re: x", "a@b", "Mon, 1 Jan 2001 00:00:00 GMT", "<c@d>", "<e@f> <g@h>", -1, -1}, true},
	// Article numbers are positive decimals (RFC 3977 section 6).
	{"", overview{}, false},
	{"0\ts", overview{}, false},
	{"-1\ts", overview{}, false},
	{"+1\ts", overview{}, false},
	{" 1\ts", overview{}, false},
	{"x\ts", overview{}, false},
	{"99999999999999999999\ts", overview{}, false},
}

func TestParseOverview(t *testing.T) {
	for _, tt := range overviewTests {
		got, err := parseOverview(tt.in)
		if (err == nil) != tt.ok {
			t.Errorf("parseOverview(%q) error = %v, want ok=%v", tt.in, err, tt.ok)
			continue
		}
		if err != nil {
			var se *syntaxError
			if !errors.As(err, &se) {
				t.Errorf("parseOverview(%q) = %T, want *syntaxError", tt.in, err)
			}
			continue
		}
		if got != tt.want {
			t.Errorf("parseOverview(%q) = %+v, want %+v", tt.in, got, tt.want)
		}
		// The summary Body re-renders overviews; parsing the rendering gives
		// the same value.
		again, err := parseOverview(got.line())
		if err != nil || again != got {
			t.Errorf("parseOverview(%q.line()) = %+v, %v; want %+v", tt.in, again, err, got)
		}
	}
}

var listGroupTests = []struct {
	in   string
	want int64 // 0: an error
}{
	// RFC 3977 section 6.1.2: "the list of article numbers in the group,
	// one per line", as in its example "211 2000 3000234 3002322 misc.test
	// list follows" then "3000234", "3000237".
	{"3000234", 3000234},
	{"3000237", 3000237},
	// RFC 2980 section 2.6's LISTGROUP: the same lines; padding is
	// dropped.
	{" 42 ", 42},
	{"7\t", 7},
	// RFC 3977 section 6: numbers are positive; above 2,147,483,647
	// they are accepted to 2^63-1 (articleNumber).
	{"2147483648", 2147483648},
	{"9223372036854775807", 9223372036854775807},
	{"9223372036854775808", 0},
	{"0", 0},
	{"-1", 0},
	{"+1", 0},
	{"", 0},
	{"1 2", 0},
	{"12a", 0},
	{"3000234\t<id@x>", 0},
}

func TestParseListGroupLine(t *testing.T) {
	for _, tt := range listGroupTests {
		got, err := parseListGroupLine(tt.in)
		var se *syntaxError
		switch {
		case tt.want == 0 && !errors.As(err, &se):
			t.Errorf("parseListGroupLine(%q) = %d, %v; want a *syntaxError", tt.in, got, err)
		case tt.want != 0 && (err != nil || got != tt.want):
			t.Errorf("parseListGroupLine(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
		}
	}
}

func TestParseHeader(t *testing.T) {
	tests := []struct {
		in   string
		want map[string]string
	}{
		// RFC 5536 section 3.1: the mandatory header fields.
		{"Subject: hi\r\nFrom: a@b\r\nMessage-ID: <x@y>\r\n\r\nbody: not a header\r\n",
			map[string]string{"Subject": "hi", "From": "a@b", "Message-Id": "<x@y>"}},
		// RFC 5322 section 2.2.3: folded fields are unfolded.
		{"Subject: a long\n subject\n\tcontinued\nLines: 3\n",
			map[string]string{"Subject": "a long subject continued", "Lines": "3"}},
		// The first of repeated fields wins; junk lines are skipped; a
		// continuation after junk belongs to nothing.
		{"subject: one\nSUBJECT: two\njunk line\n more\nbad name: v\nX:\n",
			map[string]string{"Subject": "one", "X": ""}},
		// RFC 5322 section 2.2: field names are printable ASCII; a name
		// with a control byte (here a lone CR) is no field (found by
		// FuzzParseReplies).
		{"0\r: v\nX\x01: w\nOk: y\n", map[string]string{"Ok": "y"}},
		{"", map[string]string{}},
		{"\nSubject: after the blank line\n", map[string]string{}},
	}
	for _, tt := range tests {
		if got := mbox.Fields(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("mbox.Fields(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestParseGroupReply(t *testing.T) {
	tests := []struct {
		in   string
		want GroupInfo
		ok   bool
	}{
		// RFC 3977 section 6.1.1.3 examples.
		{"1234 3000234 3002322 misc.test", GroupInfo{1234, 3000234, 3002322}, true},
		{"0 4000 3999 example.currently.empty.newsgroup", GroupInfo{0, 4000, 3999}, true},
		{"0 0 0 example.empty", GroupInfo{0, 0, 0}, true},
		{"12 1 12", GroupInfo{12, 1, 12}, true},
		{"12 1", GroupInfo{}, false},
		{"a b c d", GroupInfo{}, false},
		{"-1 1 2 g", GroupInfo{}, false},
	}
	for _, tt := range tests {
		got, err := parseGroupReply(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("parseGroupReply(%q) = %+v, %v; want %+v, ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

func TestParseArticleReply(t *testing.T) {
	tests := []struct {
		in string
		n  int64
		id string
	}{
		{"3000234 <45223423@example.com>", 3000234, "<45223423@example.com>"}, // RFC 3977 6.2.1.3
		{"0 <45223423@example.com> Article follows", 0, "<45223423@example.com>"},
		{"", 0, ""},
		{"garbage", 0, ""},
		{"5 not-an-id", 5, ""},
	}
	for _, tt := range tests {
		n, id := parseArticleReply(tt.in)
		if n != tt.n || id != tt.id {
			t.Errorf("parseArticleReply(%q) = %d, %q; want %d, %q", tt.in, n, id, tt.n, tt.id)
		}
	}
}

func TestParseActive(t *testing.T) {
	tests := []struct {
		in   string
		want ActiveGroup
		ok   bool
	}{
		// RFC 3977 section 7.6.3.
		{"misc.test 3002322 3000234 y", ActiveGroup{"misc.test", 3002322, 3000234, "y"}, true},
		{"example.is.sob.bradner.or.barber 0000000000 0000000001 m", ActiveGroup{"example.is.sob.bradner.or.barber", 0, 1, "m"}, true},
		{"alias.group 10 1 =real.group", ActiveGroup{"alias.group", 10, 1, "=real.group"}, true},
		// RFC 977 section 3.6.1: LIST without the status is still read.
		{"old.group 10 1", ActiveGroup{"old.group", 10, 1, ""}, true},
		{"bad.group x 1 y", ActiveGroup{}, false},
		{"bad.group", ActiveGroup{}, false},
	}
	for _, tt := range tests {
		got, err := parseActive(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("parseActive(%q) = %+v, %v; want %+v, ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

func TestParseNewsgroups(t *testing.T) {
	tests := []struct {
		in, name, desc string
		ok             bool
	}{
		// RFC 3977 section 7.6.6.
		{"misc.test General Usenet testing", "misc.test", "General Usenet testing", true},
		{"alt.rfc-writers.recovery\tRFC Writers Recovery", "alt.rfc-writers.recovery", "RFC Writers Recovery", true},
		{"tx.natives.recovery \t Texas Natives Recovery ", "tx.natives.recovery", "Texas Natives Recovery", true},
		{"nodesc", "", "", false},
		{" leading", "", "", false},
	}
	for _, tt := range tests {
		name, desc, ok := parseNewsgroups(tt.in)
		if name != tt.name || desc != tt.desc || ok != tt.ok {
			t.Errorf("parseNewsgroups(%q) = %q, %q, %v", tt.in, name, desc, ok)
		}
	}
}

func TestDecodeWords(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{"=?UTF-8?B?w6l0w6k=?=", "été"},                      // RFC 2047 section 4.1
		{"=?ISO-8859-1?Q?caf=E9?= time", "café time"},        // RFC 2047 section 4.2
		{"=?KOI8-R?Q?=F0=D2=C9?=", "=?KOI8-R?Q?=F0=D2=C9?="}, // unknown charset kept
		{"=?UTF-8?Q?broken", "=?UTF-8?Q?broken"},             // malformed kept
	}
	for _, tt := range tests {
		if got := decodeWords(tt.in); got != tt.want {
			t.Errorf("decodeWords(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestFileName(t *testing.T) {
	tests := []struct{ in, want string }{
		{"<abc.123@example.org>", "abc.123@example.org"},
		{"<a/b/../c@x>", "a_b_.._c@x"},
		{"<.hidden@x>", "_.hidden@x"},
		{"<>", "_"},
	}
	for _, tt := range tests {
		if got := fileName(tt.in); got != tt.want {
			t.Errorf("fileName(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
