package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/fetch"
)

type lintJSON struct {
	URL       string `json:"url"`
	Rule      string `json:"rule"`
	Level     string `json:"level"`
	Component string `json:"component"`
	Message   string `json:"message"`
}

func lintRows(t *testing.T, out string) []lintJSON {
	t.Helper()
	var rows []lintJSON
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("lint --json output %q: %v", out, err)
	}
	return rows
}

func hasRule(rows []lintJSON, rule string) bool {
	for _, r := range rows {
		if r.Rule == rule {
			return true
		}
	}
	return false
}

// Issue 3 acceptance rows for fetch lint --json.
func TestLintAcceptance(t *testing.T) {
	// The CR/LF structure of a Gopher+ ASK submission is legitimate.
	r := runArgs(t, nil, "", "lint", "--json", "gopher://h/1sel%09%09+%091%0D%0A+-1%0D%0Aval%0D%0A.%0D%0A")
	if hasRule(lintRows(t, r.out), "encoded-crlf") {
		t.Errorf("lint of a Gopher+ ASK form reports encoded-crlf: %s", r.out)
	}
	// CR/LF in a selector is an injection.
	r = runArgs(t, nil, "", "lint", "--json", "gopher://h/1sel%0D%0A")
	if !hasRule(lintRows(t, r.out), "encoded-crlf") || r.code != fetch.ExitRefused {
		t.Errorf("lint gopher://h/1sel%%0D%%0A = %d %s, want encoded-crlf and exit 4", r.code, r.out)
	}
	// Userinfo in http: both rules, and the password nowhere.
	r = runArgs(t, nil, "", "lint", "--json", "http://u:hunter2@h/")
	rows := lintRows(t, r.out)
	if !hasRule(rows, "password-in-url") || !hasRule(rows, "userinfo-not-allowed") || r.code != 0 {
		t.Errorf("lint http://u:...@h/ = %d %s", r.code, r.out)
	}
	if strings.Contains(r.out+r.err, "hunter2") {
		t.Errorf("lint printed the password: %s", r.out)
	}
	for _, row := range rows {
		if row.URL != "http://u:xxxxx@h/" || row.Level != "warning" || row.Component == "" || row.Message == "" {
			t.Errorf("lint row = %+v", row)
		}
	}
	// --strict turns warnings into a failure.
	if r := runArgs(t, nil, "", "lint", "--strict", "http://u:hunter2@h/"); r.code != fetch.ExitRefused {
		t.Errorf("lint --strict = %d, want 4", r.code)
	}
}

func TestLintInput(t *testing.T) {
	stdin := "http://h/\n\n  gopher://127.0.0.1:25/1  \nhttp://a b/\n"
	r := runArgs(t, nil, stdin, "lint")
	want := []string{"http://h/: ok", "gopher://127.0.0.1:25/1: error port-other-protocol (port)", "http://a b/: error malformed"}
	for _, w := range want {
		if !strings.Contains(r.out, w) {
			t.Errorf("lint from stdin lacks %q:\n%s", w, r.out)
		}
	}
	if r.code != fetch.ExitRefused {
		t.Errorf("lint from stdin = %d, want 4", r.code)
	}
	// "-" mixes stdin with arguments; no finding at all is an empty array.
	r = runArgs(t, nil, "http://h/\n", "lint", "--json", "-", "http://h/x")
	if r.code != 0 || strings.TrimSpace(r.out) != "[]" {
		t.Errorf("lint of clean URLs = %d %q, want 0 []", r.code, r.out)
	}
	// --allow-port lifts the port rule.
	r = runArgs(t, nil, "", "lint", "--json", "--allow-port", "25", "gopher://127.0.0.1:25/1")
	if r.code != 0 {
		t.Errorf("lint --allow-port 25 = %d %s", r.code, r.out)
	}
}
