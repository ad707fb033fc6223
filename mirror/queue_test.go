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
	room := cap(q.fifo.items)
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

// TestQueuePushAllWait: the walk's push of a listing's files waits while
// q.ahead files are queued, goes on when a worker pops one, and gives up
// when the queue closes; the files of one listing stay together; push
// (a worker's, putting a file back) never waits.
func TestQueuePushAllWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := newQueue[int]()
		q.ahead = 2
		q.pushAllWait([]int{1, 2})
		var pushed atomic.Int32
		for _, l := range [][]int{{10, 11, 12}, {20, 21, 22}} {
			go func() {
				q.pushAllWait(l)
				pushed.Add(1)
			}()
		}
		synctest.Wait()
		if pushed.Load() != 0 {
			t.Fatal("pushAllWait did not wait with 2 files queued")
		}
		q.push(3) // a worker's push goes past the bound
		if v, ok := q.pop(); !ok || v != 1 {
			t.Fatalf("pop = %d, %v", v, ok)
		}
		synctest.Wait()
		if pushed.Load() != 0 {
			t.Fatal("pushAllWait went on with 2 files still queued")
		}
		q.pop()
		synctest.Wait()
		if pushed.Load() != 1 {
			t.Fatalf("%d listings pushed with 1 file queued, want 1", pushed.Load())
		}
		q.close()
		synctest.Wait()
		if pushed.Load() != 2 {
			t.Fatal("pushAllWait still waits after the queue closed")
		}
		var got []int
		for v, ok := q.pop(); ok; v, ok = q.pop() {
			got = append(got, v)
		}
		// 3, then one listing whole; the other was dropped at the close.
		if !slices.Equal(got, []int{3, 10, 11, 12}) && !slices.Equal(got, []int{3, 20, 21, 22}) {
			t.Errorf("left in the queue: %v, want 3 and one listing whole", got)
		}
	})
}
