package mirror

import "hash/maphash"

// table is a hash table of string keys for the run's state that grows
// with the tree (the manifest's packed records, the paths the walk
// found). A Go map of a million such entries takes 2 to 2.5 times their
// size (167 bytes an entry for 72 bytes of key and value, measured with
// Go 1.26): its groups are split and filled by halves. Here the entries
// sit in chunks of fixed size, filled in order, and the hash index holds
// 4 bytes a slot (open addressing, linear probing, at most three quarters
// full): about 10 bytes an entry above the entries themselves, and no
// copy of them when it grows. An entry deleted has the empty key; the
// value of the empty key, rare (no path is empty), is kept aside. It is
// not safe for concurrent use.
type table[V any] struct {
	seed   maphash.Seed
	slots  []uint32 // 0: empty; else 1 + the index of an entry
	used   int      // slots not empty
	chunks [][]tableEntry[V]
	next   uint32   // entries handed out, in chunks
	free   []uint32 // entries deleted, to hand out again
	live   int      // entries not deleted
	// empty is the value of the empty key, when hasEmpty.
	empty    V
	hasEmpty bool
}

type tableEntry[V any] struct {
	key string // "": deleted
	val V
}

// tableChunk is how many entries a chunk holds.
const tableChunk = 4096

func (t *table[V]) entry(i uint32) *tableEntry[V] {
	return &t.chunks[i/tableChunk][i%tableChunk]
}

// find returns the entry of key, or nil.
func (t *table[V]) find(key string) *tableEntry[V] {
	if len(t.slots) == 0 {
		return nil
	}
	mask := uint64(len(t.slots) - 1)
	for i := maphash.String(t.seed, key) & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			return nil
		}
		if e := t.entry(s - 1); e.key == key {
			return e
		}
	}
}

func (t *table[V]) get(key string) (v V, ok bool) {
	if key == "" {
		return t.empty, t.hasEmpty
	}
	if e := t.find(key); e != nil {
		return e.val, true
	}
	return v, false
}

func (t *table[V]) put(key string, v V) {
	if key == "" {
		t.empty, t.hasEmpty = v, true
		return
	}
	if e := t.find(key); e != nil {
		e.val = v
		return
	}
	if 4*(t.used+1) > 3*len(t.slots) {
		t.grow()
	}
	var i uint32
	if n := len(t.free); n > 0 {
		i, t.free = t.free[n-1], t.free[:n-1]
	} else {
		if t.next%tableChunk == 0 {
			t.chunks = append(t.chunks, make([]tableEntry[V], tableChunk))
		}
		i = t.next
		t.next++
	}
	*t.entry(i) = tableEntry[V]{key: key, val: v}
	t.insert(key, i)
	t.used++
	t.live++
}

// insert puts the entry i of key in the first empty slot from its hash.
func (t *table[V]) insert(key string, i uint32) {
	mask := uint64(len(t.slots) - 1)
	h := maphash.String(t.seed, key) & mask
	for t.slots[h] != 0 {
		h = (h + 1) & mask
	}
	t.slots[h] = i + 1
}

// grow makes an index for twice the live entries (at least 1,024 slots),
// without the slots of the entries deleted.
func (t *table[V]) grow() {
	if len(t.slots) == 0 {
		t.seed = maphash.MakeSeed()
	}
	n := 1024
	for n < 2*(t.live+1) {
		n *= 2
	}
	t.slots, t.used = make([]uint32, n), 0
	for i := range t.next {
		if e := t.entry(i); e.key != "" {
			t.insert(e.key, i)
			t.used++
		}
	}
}

// delete removes key. Its slot stays, pointing at an entry whose key no
// longer matches, until the index grows.
func (t *table[V]) delete(key string) {
	if key == "" {
		var zero V
		t.empty, t.hasEmpty = zero, false
		return
	}
	e := t.find(key)
	if e == nil {
		return
	}
	*e = tableEntry[V]{}
	mask := uint64(len(t.slots) - 1)
	for i := maphash.String(t.seed, key) & mask; ; i = (i + 1) & mask {
		if s := t.slots[i]; s != 0 && t.entry(s-1) == e {
			t.free = append(t.free, s-1)
			break
		}
	}
	t.live--
}

func (t *table[V]) len() int {
	if t.hasEmpty {
		return t.live + 1
	}
	return t.live
}

// all calls f for each key and value, in no order, until f returns false.
func (t *table[V]) all(f func(key string, v V) bool) {
	if t.hasEmpty && !f("", t.empty) {
		return
	}
	for i := range t.next {
		if e := t.entry(i); e.key != "" && !f(e.key, e.val) {
			return
		}
	}
}

func (t *table[V]) clone() table[V] {
	c := *t
	c.slots = append([]uint32(nil), t.slots...)
	c.free = append([]uint32(nil), t.free...)
	c.chunks = make([][]tableEntry[V], len(t.chunks))
	for i, ch := range t.chunks {
		c.chunks[i] = append([]tableEntry[V](nil), ch...)
	}
	return c
}
