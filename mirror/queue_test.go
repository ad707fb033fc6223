package mirror

import (
	"slices"
	"sync/atomic"
	"testing"
	"testing/synctest"
)

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

// TestQueuePushWait: the walk's push of a file waits while q.ahead files
// are queued, goes on when a worker pops one, and gives up when the
// queue closes; push (a worker's, putting a file back) never waits.
func TestQueuePushWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := newQueue[int]()
		q.ahead = 2
		q.pushWait(1)
		q.pushWait(2)
		var pushed atomic.Int32
		go func() {
			q.pushWait(3)
			pushed.Add(1)
		}()
		synctest.Wait()
		if pushed.Load() != 0 {
			t.Fatal("pushWait did not wait with 2 files queued")
		}
		q.push(4) // a worker's push goes past the bound
		if v, ok := q.pop(); !ok || v != 1 {
			t.Fatalf("pop = %d, %v", v, ok)
		}
		synctest.Wait()
		if pushed.Load() != 0 {
			t.Fatal("pushWait went on with 2 files still queued")
		}
		q.pop()
		q.pop()
		synctest.Wait()
		if pushed.Load() != 1 {
			t.Fatal("pushWait still waits with 1 file queued")
		}
		q.pushWait(5)
		go func() {
			q.pushWait(6)
			pushed.Add(1)
		}()
		synctest.Wait()
		q.close()
		synctest.Wait()
		if pushed.Load() != 2 {
			t.Fatal("pushWait still waits after the queue closed")
		}
		var got []int
		for v, ok := q.pop(); ok; v, ok = q.pop() {
			got = append(got, v)
		}
		if !slices.Equal(got, []int{3, 5}) {
			t.Errorf("left in the queue: %v, want [3 5]", got)
		}
	})
}
