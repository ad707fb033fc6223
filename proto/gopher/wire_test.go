package gopher

import "testing"

func TestAskForm(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want bool
	}{
		{"+\t1\r\n+-1\r\nval\r\n.\r\n", true}, // RFC 1738 section 3.4 (9)
		{"+\t1\r\n+-1\r\na\r\nb\r\n.\r\n", true},
		{"+\t1\r\n+-1\r\n.\r\n", true},
		{"+\t1\r\n+-1\r\n\r\n.\r\n", true}, // an empty answer
		{"+\t1\r\n+-1\r\n..\r\n.\r\n", true},
		{"+\t1\r\n+-1\r\na\tb\r\n.\r\n", true},
		{"+\t1\r\n+-1\r\n.\r\nx\r\n.\r\n", false},
		{"+\t1\r\n+-1\r\nval\r\n.\r\n\r\n", false},
		{"+\t1\r\n+-1\r\nval\r\n", false},
		{"+\t1\r\n+-1\r\nval\n.\r\n", false},
		{"+\t1\r\n+-1\r\nva\rl\r\n.\r\n", false},
		{"+\t1\r\n+5\r\nhello.\r\n", false},
		{"+text/plain\t1\r\n+-1\r\n.\r\n", false},
		{"+\t1\n+-1\n.\n", false},
		{"+", false},
		{"", false},
	} {
		if got := IsAskForm(tt.in); got != tt.want {
			t.Errorf("IsAskForm(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}
