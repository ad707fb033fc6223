package proto_test

import (
	"maps"
	"reflect"
	"testing"
	"time"

	"github.com/rfc1738/fetch/proto"
)

// fill sets every field of the struct v points into, recursively, to a
// non-zero value derived from tag, so that two fills with different tags
// differ in every field. A field of a kind it does not know fails the
// test: teach fill (and Merge) about it.
func fill(t *testing.T, v reflect.Value, path, tag string) {
	t.Helper()
	switch {
	case v.Type() == reflect.TypeFor[time.Time]():
		day := 1
		if tag == "over" {
			day = 2
		}
		v.Set(reflect.ValueOf(time.Date(2020, 1, day, 0, 0, 0, 0, time.UTC)))
	case v.Kind() == reflect.Struct:
		for i := range v.NumField() {
			fill(t, v.Field(i), path+"."+v.Type().Field(i).Name, tag)
		}
	case v.Kind() == reflect.String:
		v.SetString(tag + path)
	case v.Kind() == reflect.Int64:
		n := int64(1 + len(path))
		if tag == "over" {
			n += 1000
		}
		v.SetInt(n)
	case v.Kind() == reflect.Bool:
		// Booleans cannot differ from one non-zero fill to the other.
		v.SetBool(true)
	case v.Kind() == reflect.Map && v.Type() == reflect.TypeFor[map[string]string]():
		v.Set(reflect.ValueOf(map[string]string{tag: tag + path}))
	default:
		t.Fatalf("Options%s: fill does not know %s", path, v.Type())
	}
}

// compare reports each field of got (recursively) that differs from want.
func compare(t *testing.T, got, want reflect.Value, path string) {
	t.Helper()
	if got.Kind() == reflect.Struct && got.Type() != reflect.TypeFor[time.Time]() {
		for i := range got.NumField() {
			compare(t, got.Field(i), want.Field(i), path+"."+got.Type().Field(i).Name)
		}
		return
	}
	if !reflect.DeepEqual(got.Interface(), want.Interface()) {
		t.Errorf("Merge: Options%s = %v, want %v", path, got, want)
	}
}

// TestMergeEveryField sets every field of over, and checks that Merge
// carries each one over o's: a field added to Options and forgotten in
// Merge fails here.
func TestMergeEveryField(t *testing.T) {
	var o, over proto.Options
	fill(t, reflect.ValueOf(&o).Elem(), "", "base")
	fill(t, reflect.ValueOf(&over).Elem(), "", "over")
	got := o.Merge(over)

	want := over
	want.Gateways = map[string]string{}
	maps.Copy(want.Gateways, o.Gateways)
	maps.Copy(want.Gateways, over.Gateways)
	compare(t, reflect.ValueOf(got), reflect.ValueOf(want), "")

	// Over the zero value, too.
	compare(t, reflect.ValueOf(proto.Options{}.Merge(over)), reflect.ValueOf(over), "")
}

// TestMergeZero: an over that sets nothing leaves o as it is.
func TestMergeZero(t *testing.T) {
	var o proto.Options
	fill(t, reflect.ValueOf(&o).Elem(), "", "base")
	compare(t, reflect.ValueOf(o.Merge(proto.Options{})), reflect.ValueOf(o), "")
}

// TestMergeGateways: gateways merge scheme by scheme into a new map; the
// inputs are not changed.
func TestMergeGateways(t *testing.T) {
	o := proto.Options{Gateways: map[string]string{"wais": "http://a/", "prospero": "http://p/"}}
	over := proto.Options{Gateways: map[string]string{"wais": "http://b/"}}
	got := o.Merge(over)
	want := map[string]string{"wais": "http://b/", "prospero": "http://p/"}
	if !maps.Equal(got.Gateways, want) {
		t.Errorf("Merge: Gateways = %v, want %v", got.Gateways, want)
	}
	got.Gateways["x"] = "y"
	if len(o.Gateways) != 2 || o.Gateways["wais"] != "http://a/" || len(over.Gateways) != 1 {
		t.Errorf("Merge changed its inputs: %v, %v", o.Gateways, over.Gateways)
	}
	if g := (proto.Options{}).Merge(over).Gateways; !maps.Equal(g, over.Gateways) {
		t.Errorf("Merge over no gateways: Gateways = %v, want %v", g, over.Gateways)
	}
}
