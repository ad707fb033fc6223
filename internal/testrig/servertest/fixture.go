package servertest

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"testing"
	"time"
)

// Facts about the fixture tree written by scripts/fixtures.sh (see the package
// doc for the layout). The integration tests of this package check them
// against the running servers.
const (
	// Bin5MSize and Bin5MSHA256 describe bin5m.bin (ftp/pub, www, gopher).
	Bin5MSize   = 5 << 20
	Bin5MSHA256 = "c9d3b7518dbe26f624a9181443c4a93914b2a747e31421390137b2cd32d32382"
	// SmallBinSize and SmallBinSHA256 describe small.bin (ftp/pub, gopher).
	SmallBinSize   = 1000
	SmallBinSHA256 = "979a096b3e9aaf1610e1402a850ae7356f1984acdd555c2f0f339aa5103130ed"
	// ManyFiles is the number of files in ftp/pub/many and items in gopher/big.
	ManyFiles = 2000
	// LinesCount is the number of LF-terminated lines of lines.txt (5400 bytes).
	LinesCount = 100
)

var (
	// FixtureTime is the modification time of every fixture file and directory...
	FixtureTime = time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	// LaterTime ...except ftp/pub/hello.txt and www/hello.txt, which have this one.
	LaterTime = time.Date(2010, 1, 1, 5, 0, 0, 0, time.UTC)
)

// Article is one article of the news fixture.
type Article struct {
	Group     string
	Number    int
	MessageID string // with the angle brackets
	Subject   string
	Lines     int // body lines, as in the Lines header and the overview
}

// NewsArticles lists the articles of the news fixture, by group and number.
// local.test has numbers 1-5 and 7 (6 is a gap: ARTICLE 6 gives 423), its
// active file says high 7, low 1; local.other has 1 and 2; local.empty has none.
var NewsArticles = []Article{
	{"local.other", 1, "<other-1@fetch.invalid>", "Other group, first", 1},
	{"local.other", 2, "<other-2@fetch.invalid>", "Other group, second", 1},
	{"local.test", 1, "<test-1@fetch.invalid>", "First test article", 2},
	{"local.test", 2, "<test-2@fetch.invalid>", "Dot-stuffing test", 7},
	{"local.test", 3, "<test-3@fetch.invalid>", "Re: First test article", 1},
	{"local.test", 4, "<test-4@fetch.invalid>", "Folded header and UTF-8 body", 2},
	{"local.test", 5, "<test-5@fetch.invalid>", "Fifth article", 3},
	{"local.test", 7, "<test-7/slash+plus@fetch.invalid>", "Message-ID with slash and plus", 1},
}

// SHA256File returns the hex SHA-256 of the file at path, failing the test on error.
func SHA256File(t testing.TB, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("servertest: %v", err)
		return ""
	}
	defer f.Close()
	sum, _, err := SHA256(f)
	if err != nil {
		t.Fatalf("servertest: %s: %v", path, err)
	}
	return sum
}

// SHA256 returns the hex SHA-256 of r's bytes and how many there were.
func SHA256(r io.Reader) (string, int64, error) {
	h := sha256.New()
	n, err := io.Copy(h, r)
	return hex.EncodeToString(h.Sum(nil)), n, err
}
