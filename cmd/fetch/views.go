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
func schemeView(u *uri.URL) (object, error) {
	d, _ := drivers().Lookup(u.Scheme)
	vw, ok := d.(proto.Viewer)
	if !ok {
		return nil, nil
	}
	v, err := vw.View(u)
	if err != nil {
		return nil, err
	}
	return objectOf(v), nil
}

// objectOf is v as an object, nested views as nested objects.
func objectOf(v proto.View) object {
	o := make(object, len(v))
	for i, f := range v {
		val := f.Value
		if sub, ok := val.(proto.View); ok {
			val = objectOf(sub)
		}
		o[i] = field{f.Key, val}
	}
	return o
}

// listingForm is how resp's driver has its listing printed.
func listingForm(resp *fetch.Response) proto.ListingForm {
	d, _ := drivers().Lookup(resp.URL.Scheme)
	if lf, ok := d.(proto.ListingFormer); ok {
		return lf.ListingForm(&resp.Response)
	}
	return proto.FormLong
}
