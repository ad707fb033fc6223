package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
)

// byteSize is a flag of a number of bytes, as wget's --quota takes it: a
// whole number, or one followed by k, m or g (any case) for KiB, MiB or
// GiB (1024, 1024², 1024³). Zero means no bound.
type byteSize int64

var _ pflag.Value = (*byteSize)(nil)

func (b *byteSize) String() string { return strconv.FormatInt(int64(*b), 10) }

func (b *byteSize) Type() string { return "bytes" }

func (b *byteSize) Set(v string) error {
	n, err := parseByteSize(v)
	if err != nil {
		return err
	}
	*b = byteSize(n)
	return nil
}

// parseByteSize parses a byteSize ("100", "64k", "5M", "2g").
func parseByteSize(v string) (int64, error) {
	num, shift := v, 0
	if i := len(v) - 1; i > 0 {
		if j := strings.IndexByte("kmg", v[i]|0x20); j >= 0 { // |0x20: either case
			num, shift = v[:i], 10*(j+1)
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || num[0] < '0' || num[0] > '9' || n > math.MaxInt64>>shift { // no sign, not even "-0"
		return 0, fmt.Errorf("%q is not a number of bytes (a whole number, or one followed by k, m or g)", v)
	}
	return n << shift, nil
}
