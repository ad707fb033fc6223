package mirror

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestTable puts, deletes and overwrites keys in random order, through
// several growths of the index and the reuse of deleted entries, and
// checks the table against a map after each step.
func TestTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var tb table[int]
	ref := map[string]int{}
	for step := range 60000 {
		k := strconv.Itoa(rng.IntN(20000))
		if k == "7" {
			k = "" // the empty key, kept aside
		}
		switch rng.IntN(4) {
		case 0:
			tb.delete(k)
			delete(ref, k)
		default:
			tb.put(k, step)
			ref[k] = step
		}
		if step%997 == 0 || step == 59999 {
			checkTable(t, &tb, ref)
		}
	}
	c := tb.clone()
	tb.put("after the clone", 1)
	checkTable(t, &c, ref)
}

func checkTable(t *testing.T, tb *table[int], ref map[string]int) {
	t.Helper()
	if tb.len() != len(ref) {
		t.Fatalf("len %d, want %d", tb.len(), len(ref))
	}
	for k, v := range ref {
		if got, ok := tb.get(k); !ok || got != v {
			t.Fatalf("get(%q) = %d, %v; want %d", k, got, ok, v)
		}
	}
	n := 0
	tb.all(func(k string, v int) bool {
		n++
		if ref[k] != v {
			t.Fatalf("all: %q = %d, want %d", k, v, ref[k])
		}
		return true
	})
	if n != len(ref) {
		t.Fatalf("all gave %d keys, want %d", n, len(ref))
	}
	if _, ok := tb.get("never put"); ok {
		t.Fatal("a key never put was found")
	}
}
