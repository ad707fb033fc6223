package uri_test

import (
	"errors"
	"fmt"

	"github.com/rfc1738/fetch/uri"
)

func ExampleParse() {
	u, err := uri.Parse("FTP://myname:secret@host.dom:2121/%2Fetc/motd;type=a")
	if err != nil {
		panic(err)
	}
	pass, hasPass := u.User.Password()
	fmt.Println(u.Scheme, u.User.Username(), pass != "", hasPass, u.Hostname(), u.PortNumber())
	fmt.Println(u.Path)
	fmt.Println(u.Redacted())
	// Output:
	// ftp myname true true host.dom 2121
	// /%2Fetc/motd;type=a
	// ftp://myname:xxxxx@host.dom:2121/%2Fetc/motd;type=a
}

func ExampleParse_error() {
	_, err := uri.Parse("http://a b/")
	var e *uri.Error
	if errors.As(err, &e) {
		fmt.Println(e.Offset, e.Component)
	}
	fmt.Println(err)
	// Output:
	// 8 host
	// uri: host at offset 8: invalid character ' ' in host name
}

func ExampleResolve() {
	base := uri.MustParse("http://a/b/c/d;p?q")
	for _, ref := range []string{"?y", ";x", "../../../g"} {
		r := uri.MustParse(ref)
		a, _ := uri.Resolve(base, r, uri.RFC1808)
		b, _ := uri.Resolve(base, r, uri.RFC2396)
		c, _ := uri.Resolve(base, r, uri.RFC3986)
		fmt.Printf("%-11s %-20s %-20s %s\n", ref, a, b, c)
	}
	// Output:
	// ?y          http://a/b/c/d;p?y   http://a/b/c/?y      http://a/b/c/d;p?y
	// ;x          http://a/b/c/d;x     http://a/b/c/;x      http://a/b/c/;x
	// ../../../g  http://a/../g        http://a/../g        http://a/g
}

func ExampleResolveString() {
	s, err := uri.ResolveString("http://www.ics.uci.edu/Test/a/b/c", "../x", uri.RFC3986)
	fmt.Println(s, err)
	// Output:
	// http://www.ics.uci.edu/Test/a/x <nil>
}

func ExampleExtract() {
	text := "Yes, Jim, I found it under <ftp://info.cern.ch/pub/www/doc;\n" +
		"      type=d> but you can probably pick it up from <URL:ftp://ds.in\n" +
		"      ternic.net/rfc>.  See also http://www.w3.org/Addressing/."
	for _, u := range uri.Extract(text) {
		fmt.Println(u)
	}
	// Output:
	// ftp://info.cern.ch/pub/www/doc;type=d
	// ftp://ds.internic.net/rfc
	// http://www.w3.org/Addressing/
}

func ExampleFindAll() {
	for _, m := range uri.FindAll("<http://h/uri-\n  history.html>") {
		fmt.Println(m.URL)
		fmt.Println(m.NoHyphen)
	}
	// Output:
	// http://h/uri-history.html
	// http://h/urihistory.html
}

func ExampleNormalize() {
	u := uri.MustParse("HTTP://www.XEROX.com:80/%7euser/a%2fb")
	fmt.Println(uri.Normalize(u))
	fmt.Println(uri.Equal(u, uri.MustParse("http://www.xerox.com/~user/a%2Fb")))
	// Output:
	// http://www.xerox.com/~user/a%2Fb
	// true
}

func ExampleAbbreviated() {
	for _, s := range []string{"www.w3.org/Addressing/", "ftp.funet.fi/pub/", "joe@example.org", "example.org"} {
		u, ok := uri.Abbreviated(s)
		fmt.Println(u, ok)
	}
	// Output:
	// http://www.w3.org/Addressing/ true
	// ftp://ftp.funet.fi/pub/ true
	// mailto:joe@example.org true
	// <nil> false
}

func ExampleEscapePart() {
	fmt.Println(uri.EscapePart("a/b;c?d e", uri.PartSegment))
	fmt.Println(uri.EscapePart("a/b;c?d e", uri.PartSelector))
	fmt.Println(uri.EscapePart("x+y=z", uri.PartQuery))
	// Output:
	// a%2Fb%3Bc%3Fd%20e
	// a/b;c?d%20e
	// x%2By=z
}

func ExampleURL_FTP() {
	for _, s := range []string{
		"ftp://myname@host.dom/%2Fetc/motd",
		"ftp://myname@host.dom/etc/motd",
		"ftp://myname@host.dom//etc/motd",
		"ftp://info.cern.ch/pub/www/doc;type=d",
	} {
		v, _ := uri.MustParse(s).FTP()
		fmt.Printf("cwd %q name %q type %q\n", v.CWD, v.Name, v.Type)
	}
	// Output:
	// cwd ["/etc"] name "motd" type ""
	// cwd ["etc"] name "motd" type ""
	// cwd ["" "etc"] name "motd" type ""
	// cwd ["pub" "www"] name "doc" type "d"
}

func ExampleURL_HTTP() {
	v, _ := uri.MustParse("http://www.ics.uci.edu?q=uri").HTTP()
	fmt.Println(v.Path, *v.Search)
	// Output:
	// / q=uri
}

func ExampleURL_Gopher() {
	for _, s := range []string{"gopher://host/", "gopher://h/0a%09b%09+", "gopher://h/0a?b"} {
		v, _ := uri.MustParse(s).Gopher()
		fmt.Printf("type %s selector %q", v.Type, v.Selector)
		if v.Search != nil {
			fmt.Printf(" search %q", *v.Search)
		}
		if v.Plus != nil {
			fmt.Printf(" plus %q", *v.Plus)
		}
		fmt.Println()
	}
	// Output:
	// type 1 selector ""
	// type 0 selector "a" search "b" plus "+"
	// type 0 selector "a?b"
}

func ExampleURL_News() {
	for _, s := range []string{"news:*", "news:comp.infosystems.www.misc", "news:1234@news.example.org"} {
		v, _ := uri.MustParse(s).News()
		fmt.Printf("all %v group %q article %q\n", v.All, v.Group, v.Article)
	}
	// Output:
	// all true group "" article ""
	// all false group "comp.infosystems.www.misc" article ""
	// all false group "" article "1234@news.example.org"
}

func ExampleURL_NNTP() {
	v, _ := uri.MustParse("nntp://news.example.org/comp.lang.go/12345").NNTP()
	fmt.Println(v.Group, *v.Article)
	// Output:
	// comp.lang.go 12345
}

func ExampleURL_Prospero() {
	v, _ := uri.MustParse("prospero://host.dom//pros/name;OBJECT-VERSION=3").Prospero()
	fmt.Println(v.HSOName, v.Fields)
	// Output:
	// /pros/name [{OBJECT-VERSION 3}]
}

func ExampleURL_WAIS() {
	for _, s := range []string{"wais://h/db?gopher%20protocol", "wais://h/db/TEXT/0%2017%2Fdoc"} {
		v, _ := uri.MustParse(s).WAIS()
		fmt.Print(v.Database)
		if v.Search != nil {
			fmt.Printf(" search %q", *v.Search)
		}
		if v.WType != nil {
			fmt.Printf(" wtype %q wpath %q", *v.WType, *v.WPath)
		}
		fmt.Println()
	}
	// Output:
	// db search "gopher protocol"
	// db wtype "TEXT" wpath "0 17/doc"
}

func ExampleURL_File() {
	v, _ := uri.MustParse("file://localhost/etc/motd").File()
	fmt.Println(v.Path, v.IsLocal())
	// Output:
	// /etc/motd true
}

func ExampleURL_Mailto() {
	v, _ := uri.MustParse("mailto:joe%25home@example.org").Mailto()
	fmt.Println(v.Address)
	// Output:
	// joe%home@example.org
}

func ExampleURL_Telnet() {
	u := uri.MustParse("telnet://guest:secret@bbs.example.org:2323/")
	if _, err := u.Telnet(); err == nil {
		fmt.Println(u.User.Username(), u.Hostname(), u.PortNumber())
	}
	// Output:
	// guest bbs.example.org 2323
}
