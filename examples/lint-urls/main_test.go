package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestLintURLs(t *testing.T) {
	in := `# test list
gopher://127.0.0.1:25/1
ftp://h/a%0D%0ADELE%20x

http://u:hunter2@h/
http://h/
http://a b/
`
	var out, errb bytes.Buffer
	code := run([]string{"-v", "-"}, strings.NewReader(in), &out, &errb)
	if code != 4 {
		t.Errorf("exit %d, want 4 (stderr %q)", code, errb.String())
	}
	got := out.String()
	for _, want := range []string{
		"5 URLs, 3 refused\n",
		"findings: 3 error, 2 warning, 0 info\n",
		"       1  error    encoded-crlf\n",
		"       1  error    malformed\n",
		"       1  error    port-other-protocol\n",
		"       1  warning  password-in-url\n",
		"       1  warning  userinfo-not-allowed\n",
		"http://u:xxxxx@h/: warning password-in-url",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "hunter2") {
		t.Errorf("output shows the password:\n%s", got)
	}
	out.Reset()
	if code := run([]string{"-"}, strings.NewReader("http://h/\n"), &out, &errb); code != 0 || out.String() != "1 URLs, 0 refused\nfindings: 0 error, 0 warning, 0 info\n" {
		t.Errorf("clean list = %d %q", code, out.String())
	}
	if code := run(nil, nil, &out, &errb); code != 2 {
		t.Errorf("no argument = %d, want 2", code)
	}
	if code := run([]string{"/nonexistent"}, nil, &out, &errb); code != 1 {
		t.Errorf("missing file = %d, want 1", code)
	}
}
