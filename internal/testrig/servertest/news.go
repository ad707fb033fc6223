package servertest

import (
	"context"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// AddNewsArticles appends n articles (1 to 1000) to group of the running
// INN with scripts/news-add.sh, which writes them to the tradspool as user
// news, raises the group's high water mark in the active file and rebuilds
// the group's overview: the way a test gets "new articles posted between
// two runs" from a server that cannot take posts. The articles' bytes
// depend only on group and number. It returns the first and last numbers
// added; any failure fails the test.
func AddNewsArticles(t testing.TB, group string, n int) (first, last int64) {
	t.Helper()
	root := Root(t)
	if root == "" {
		return 0, 0
	}
	_, self, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("servertest: cannot locate scripts/news-add.sh")
	}
	script := filepath.Join(filepath.Dir(self), "..", "..", "..", "scripts", "news-add.sh")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "bash", script, root, group, strconv.Itoa(n)).Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("servertest: news-add.sh %s %d: %v\n%s", group, n, err, stderr)
	}
	f := strings.Fields(string(out))
	if len(f) != 2 {
		t.Fatalf("servertest: news-add.sh printed %q, want FIRST LAST", out)
	}
	first, err1 := strconv.ParseInt(f[0], 10, 64)
	last, err2 := strconv.ParseInt(f[1], 10, 64)
	if err1 != nil || err2 != nil || last-first+1 != int64(n) {
		t.Fatalf("servertest: news-add.sh printed %q for %d articles", out, n)
	}
	return first, last
}
