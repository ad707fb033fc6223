// Command testsum reads the output of `go test -json` on stdin and prints a
// line for each package as it ends, the output of every test that failed
// (and of a package that failed outside its tests, or did not build), and at
// the end two summary lines: the packages and the time, then the tests in
// the plain form "N passed, N failed, N skipped". It exits 1 when a test or
// a package failed, or when no test ran at all.
//
//	go test -json ./... | go run ./scripts/testsum
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"
)

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action      string
	Package     string
	ImportPath  string
	Test        string
	Output      string
	Elapsed     float64
	FailedBuild string
}

// pkgState collects what a package printed until it ends.
type pkgState struct {
	passed, failed, skipped int
	out                     map[string]*strings.Builder // test name ("" for the package) -> output
	failedTests             []string
}

type summary struct {
	w                       io.Writer
	pkgs                    map[string]*pkgState
	build                   map[string]*strings.Builder // import path -> build output
	okPkgs, failPkgs        int
	passed, failed, skipped int
}

func main() {
	start := time.Now()
	s := &summary{w: os.Stdout, pkgs: map[string]*pkgState{}, build: map[string]*strings.Builder{}}
	if err := s.read(os.Stdin); err != nil {
		fmt.Fprintln(os.Stderr, "testsum:", err)
		os.Exit(1)
	}
	os.Exit(s.finish(time.Since(start)))
}

func (s *summary) read(r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			// Not an event: go itself printing (a build error before
			// test2json, a panic of the go command). Pass it on.
			fmt.Fprintf(s.w, "%s\n", line)
			continue
		}
		s.handle(e)
	}
	return sc.Err()
}

func (s *summary) state(pkg string) *pkgState {
	p := s.pkgs[pkg]
	if p == nil {
		p = &pkgState{out: map[string]*strings.Builder{}}
		s.pkgs[pkg] = p
	}
	return p
}

func (s *summary) handle(e event) {
	switch e.Action {
	case "build-output":
		b := s.build[e.ImportPath]
		if b == nil {
			b = &strings.Builder{}
			s.build[e.ImportPath] = b
		}
		b.WriteString(e.Output)
	case "build-fail":
		fmt.Fprintf(s.w, "FAIL build %s\n%s", e.ImportPath, s.build[e.ImportPath])
	case "output":
		p := s.state(e.Package)
		b := p.out[e.Test]
		if b == nil {
			b = &strings.Builder{}
			p.out[e.Test] = b
		}
		b.WriteString(e.Output)
	case "pass", "fail", "skip":
		if e.Test != "" {
			s.testEnded(e)
		} else {
			s.packageEnded(e)
		}
	}
}

func (s *summary) testEnded(e event) {
	p := s.state(e.Package)
	switch e.Action {
	case "pass":
		p.passed++
		delete(p.out, e.Test)
	case "skip":
		p.skipped++
		delete(p.out, e.Test)
	case "fail":
		p.failed++
		p.failedTests = append(p.failedTests, e.Test)
	}
}

func (s *summary) packageEnded(e event) {
	p := s.state(e.Package)
	defer delete(s.pkgs, e.Package)
	s.passed += p.passed
	s.failed += p.failed
	s.skipped += p.skipped
	if e.Action == "skip" && p.passed+p.failed+p.skipped == 0 {
		return // no test files
	}
	counts := fmt.Sprintf("%d passed, %d failed, %d skipped", p.passed, p.failed, p.skipped)
	if e.Action != "fail" {
		s.okPkgs++
		fmt.Fprintf(s.w, "ok    %-50s %7.1fs  %s\n", e.Package, e.Elapsed, counts)
		return
	}
	s.failPkgs++
	fmt.Fprintf(s.w, "FAIL  %-50s %7.1fs  %s\n", e.Package, e.Elapsed, counts)
	sort.Strings(p.failedTests)
	for _, t := range p.failedTests {
		if b := p.out[t]; b != nil {
			fmt.Fprintf(s.w, "%s", b)
		}
	}
	if b := p.out[""]; b != nil && (p.failed == 0 || strings.Contains(b.String(), "panic:")) {
		fmt.Fprintf(s.w, "%s", b)
	}
	if p.failed == 0 && len(p.failedTests) == 0 {
		s.failed++ // the package failed outside its tests: count it once
	}
}

func (s *summary) finish(took time.Duration) int {
	for pkg, p := range s.pkgs { // never ended: the run was cut short
		fmt.Fprintf(s.w, "FAIL  %s did not finish\n", pkg)
		for _, b := range p.out {
			fmt.Fprintf(s.w, "%s", b)
		}
		s.failPkgs++
		s.failed++
	}
	fmt.Fprintf(s.w, "packages: %d ok, %d failed, in %.0f s\n", s.okPkgs, s.failPkgs, took.Seconds())
	fmt.Fprintf(s.w, "tests: %d passed, %d failed, %d skipped\n", s.passed, s.failed, s.skipped)
	if s.failed > 0 || s.failPkgs > 0 || s.passed == 0 {
		return 1
	}
	return 0
}
