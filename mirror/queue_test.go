package mirror

import "testing"

// TestQueueGivesBackPoppedRoom: once most of a long queue is popped, its
// array shrinks to what is left instead of keeping room for all it ever
// held, and the items still come out in order.
func TestQueueGivesBackPoppedRoom(t *testing.T) {
	const n = 100_000
	q := newQueue[int]()
	for i := range n {
		q.push(i)
	}
	for i := range n - 10 {
		if v, ok := q.pop(); !ok || v != i {
			t.Fatalf("pop %d = %d, %v", i, v, ok)
		}
	}
	q.mu.Lock()
	room := cap(q.items)
	q.mu.Unlock()
	if room > n/4 {
		t.Errorf("10 items left hold room for %d (of %d pushed)", room, n)
	}
	for i := n - 10; i < n+5; i++ {
		if i >= n-5 {
			q.push(i + 5)
		}
		if v, ok := q.pop(); !ok || v != i {
			t.Fatalf("pop %d = %d, %v", i, v, ok)
		}
	}
}
