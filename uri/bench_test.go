package uri_test

import (
	"net/url"
	"testing"

	"github.com/rfc1738/fetch/uri"
)

// benchCorpus holds realistic URLs of every scheme of RFC 1738 (and https,
// and one relative reference), taken from the seeds' examples and their
// common shapes. One benchmark operation parses all of them.
var benchCorpus = []string{
	"http://www.ics.uci.edu/pub/ietf/uri/#Related",
	"https://user@example.com:8443/search?q=go+url&lang=en",
	"http://[2001:db8::7]:8080/c=GB?objectClass?one",
	"ftp://myname@host.dom/%2Fetc/motd",
	"ftp://ftp.funet.fi/pub/standards/RFC/rfc1738.txt;type=a",
	"ftp://anonymous:guest%40example.org@ftp.example.org:2121/pub/a/b/c/",
	"gopher://gopher.floodgap.com/1/world",
	"gopher://spinaltap.micro.umn.edu/00/Weather/California/Los%20Angeles",
	"gopher://gopher.example.org:7070/7/lookup%09gopher%20protocol%09+",
	"mailto:masinter@parc.xerox.com",
	"news:comp.infosystems.www.servers.unix",
	"news:12345.678@news.example.org",
	"nntp://news.example.org/comp.lang.go/12345",
	"telnet://guest:secret@bbs.example.org:2323/",
	"wais://wais.example.org:210/directory-of-servers?gopher+protocol",
	"file:///home/fred/bio.txt",
	"file://vms.host.edu/disk$user/my/notes/note12345.txt",
	"prospero://host.dom//pros/name;OBJECT-VERSION=3",
	"../../g;x?y#s",
}

// Both parsers accept the whole corpus, so the benchmarks compare like
// with like.
func TestBenchCorpus(t *testing.T) {
	for _, s := range benchCorpus {
		if _, err := uri.Parse(s); err != nil {
			t.Errorf("uri.Parse(%q) = %v", s, err)
		}
		if _, err := url.Parse(s); err != nil {
			t.Errorf("url.Parse(%q) = %v", s, err)
		}
	}
}

// The results go to package variables, as a caller keeps them: otherwise
// the compiler may inline Parse and keep the URL on the stack.
var (
	sinkURI *uri.URL
	sinkNet *url.URL
)

func BenchmarkParse(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		for _, s := range benchCorpus {
			u, err := uri.Parse(s)
			if err != nil {
				b.Fatal(err)
			}
			sinkURI = u
		}
	}
}

func BenchmarkNetURLParse(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		for _, s := range benchCorpus {
			u, err := url.Parse(s)
			if err != nil {
				b.Fatal(err)
			}
			sinkNet = u
		}
	}
}
