package main

import (
	"github.com/rfc1738/fetch/uri"
)

// schemeView returns the scheme-specific object of u (DESIGN.md, "fetch
// parse --json keys"), or nil for a scheme RFC 1738 does not define.
func schemeView(u *uri.URL) (object, error) {
	views := map[string]func(*uri.URL) (object, error){
		"ftp": ftpView, "http": httpView, "https": httpView, "gopher": gopherView,
		"news": newsView, "nntp": nntpView, "telnet": telnetView, "wais": waisView,
		"file": fileView, "prospero": prosperoView, "mailto": mailtoView,
	}
	f, ok := views[u.Scheme]
	if !ok {
		return nil, nil
	}
	return f(u)
}

func ftpView(u *uri.URL) (object, error) {
	v, err := u.FTP()
	if err != nil {
		return nil, err
	}
	cwd := v.CWD
	if cwd == nil {
		cwd = []string{}
	}
	return object{{"cwd", cwd}, {"name", v.Name}, {"type", nullable(v.Type)}}, nil
}

func httpView(u *uri.URL) (object, error) {
	v, err := u.HTTP()
	if err != nil {
		return nil, err
	}
	return object{{"path", v.Path}, {"search", v.Search}}, nil
}

func gopherView(u *uri.URL) (object, error) {
	v, err := u.Gopher()
	if err != nil {
		return nil, err
	}
	return object{{"type", v.Type}, {"selector", v.Selector}, {"search", v.Search}, {"plus", v.Plus}}, nil
}

func newsView(u *uri.URL) (object, error) {
	v, err := u.News()
	if err != nil {
		return nil, err
	}
	return object{{"group", v.Group}, {"article", nullable(v.Article)}, {"all", v.All}}, nil
}

func nntpView(u *uri.URL) (object, error) {
	v, err := u.NNTP()
	if err != nil {
		return nil, err
	}
	return object{{"group", v.Group}, {"article", v.Article}}, nil
}

func telnetView(u *uri.URL) (object, error) {
	if _, err := u.Telnet(); err != nil {
		return nil, err
	}
	return object{}, nil
}

func waisView(u *uri.URL) (object, error) {
	v, err := u.WAIS()
	if err != nil {
		return nil, err
	}
	return object{{"database", v.Database}, {"search", v.Search}, {"wtype", v.WType}, {"wpath", v.WPath}}, nil
}

func fileView(u *uri.URL) (object, error) {
	v, err := u.File()
	if err != nil {
		return nil, err
	}
	return object{{"host", v.Host}, {"path", v.Path}}, nil
}

func prosperoView(u *uri.URL) (object, error) {
	v, err := u.Prospero()
	if err != nil {
		return nil, err
	}
	fields := object{}
	for _, f := range v.Fields {
		fields = append(fields, field{f.Name, f.Value})
	}
	return object{{"hsoname", v.HSOName}, {"fields", fields}}, nil
}

func mailtoView(u *uri.URL) (object, error) {
	v, err := u.Mailto()
	if err != nil {
		return nil, err
	}
	return object{{"address", v.Address}}, nil
}

// nullable is s, or nil (JSON null) when s is empty.
func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
