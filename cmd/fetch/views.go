package main

import (
	"sync"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// drivers are the built-in drivers, which describe their URLs and say how
// their listings are printed. Built once, never changed.
var drivers = sync.OnceValue(fetch.DefaultRegistry)

// schemeView returns the scheme-specific object of u (DESIGN.md, "fetch
// parse --json keys"), as the driver of its scheme describes it
// (proto.Viewer), or nil for a scheme without one.
func schemeView(u *uri.URL) (proto.View, error) {
	d, _ := drivers().Lookup(u.Scheme)
	vw, ok := d.(proto.Viewer)
	if !ok {
		return nil, nil
	}
	return vw.View(u)
}

// listingForm is how resp's driver has its listing printed.
func listingForm(resp *fetch.Response) proto.ListingForm {
	d, _ := drivers().Lookup(resp.URL.Scheme)
	if lf, ok := d.(proto.ListingFormer); ok {
		return lf.ListingForm(&resp.Response)
	}
	return proto.FormLong
}
