package mirror

import (
	"encoding/hex"
	"math"
	"strings"
	"time"
)

// packed is a Record as a file mirror's manifest holds most of them in
// memory (manifest.packed): a file whose URL is the manifest's source
// followed by its path (and for FTP ";type=i"), whose SHA-256 is 64 lowercase hex digits, whose
// time is zero or a UTC time within reach of Unix nanoseconds (the years
// 1678 to 2261), with no MDTM time, no fetch time and no link target. It
// takes 56 bytes where a Record, its digest and its URL take about 250:
// a tree of a million files fits in memory. Every other record stays a
// Record (manifest.Files). The manifest on disk is the same either way.
type packed struct {
	size int64
	mod  int64 // ModTime in Unix nanoseconds; noTime for the zero time
	sum  [32]byte
	// typed: the URL ends with ";type=i" after the path, as the FTP
	// walk makes it.
	typed bool
}

// binaryType is the typecode the FTP walk puts after a file's path.
const binaryType = ";type=i"

// noTime is a packed time (packTime) for the zero time.
const noTime = math.MinInt64

// packTime returns t in Unix nanoseconds, noTime for the zero time; ok is
// false for a time they cannot hold, outside the years 1678 to 2261.
func packTime(t time.Time) (n int64, ok bool) {
	if t.IsZero() {
		return noTime, true
	}
	if y := t.Year(); y < 1678 || y > 2261 {
		return 0, false
	}
	return t.UnixNano(), true
}

// unpackTime returns the time n packs (packTime), in UTC.
func unpackTime(n int64) time.Time {
	if n == noTime {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

// pack returns r packed, for the path rel of a manifest whose source is
// src; ok is false when r does not fit (see packed).
func pack(rel string, r Record, src string) (p packed, ok bool) {
	if !r.ExactTime.IsZero() || !r.Fetched.IsZero() || r.Link != "" || len(r.SHA256) != 64 {
		return p, false
	}
	u, typed := strings.CutSuffix(r.URL, binaryType)
	if len(u) != len(src)+len(rel) || u[:len(src)] != src || u[len(src):] != rel {
		return p, false
	}
	p.typed = typed
	if !lowerHex(r.SHA256) {
		return p, false
	}
	if _, err := hex.Decode(p.sum[:], []byte(r.SHA256)); err != nil {
		return p, false
	}
	if !r.ModTime.IsZero() && r.ModTime.Location() != time.UTC {
		return p, false
	}
	p.size = r.Size
	p.mod, ok = packTime(r.ModTime)
	return p, ok
}

// record returns p as the Record it packs, at the path rel of a manifest
// whose source is src.
func (p packed) record(rel, src string) Record {
	r := Record{Size: p.size, ModTime: unpackTime(p.mod), SHA256: hex.EncodeToString(p.sum[:]), URL: src + rel}
	if p.typed {
		r.URL += binaryType
	}
	return r
}

// lowerHex reports whether s is made of the digits 0-9 and a-f only, as
// hex.EncodeToString writes them (an upper-case digest would not come
// back the same).
func lowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
