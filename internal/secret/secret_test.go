package secret

import "testing"

func TestHide(t *testing.T) {
	for _, c := range []struct{ s, pw, want string }{
		{"331 hunter2 ok hunter2", "hunter2", "331 **** ok ****"},
		{"no password here", "hunter2", "no password here"},
		{"anything", "", "anything"},
	} {
		if got := Hide(c.s, c.pw); got != c.want {
			t.Errorf("Hide(%q, %q) = %q, want %q", c.s, c.pw, got, c.want)
		}
	}
}

func TestMasked(t *testing.T) {
	for pw, want := range map[string]bool{"xxxxx": true, "****": true, "hunter2": false, "": false, "xxxx": false} {
		if got := Masked(pw); got != want {
			t.Errorf("Masked(%q) = %v, want %v", pw, got, want)
		}
	}
}
