package mirror

import "sync"

// queue is an unbounded FIFO shared by producers and consumers: the walk
// pushes directories and files as it finds them and never waits for a
// transfer, so the tree is listed while files arrive.
type queue[T any] struct {
	mu     sync.Mutex
	cond   sync.Cond
	items  []T
	head   int
	closed bool

	// g, when set, holds the items instead, grouped (newGroupedQueue):
	// push and close go to it, and consumers pop with popAt.
	g *groupQueue[T]
}

// newGroupedQueue returns a queue whose items are grouped by key, for
// consumers that each stay with one group (groupQueue, popAt).
func newGroupedQueue[T any](key func(T) string) *queue[T] {
	q := newQueue[T]()
	q.g = newGroupQueue(key)
	return q
}

// popAt is pop for a consumer whose place is *at (groupQueue.pop); on a
// queue not grouped it is pop.
func (q *queue[T]) popAt(at **group[T]) (T, bool) {
	if q.g == nil {
		return q.pop()
	}
	return q.g.pop(at)
}

func newQueue[T any]() *queue[T] {
	q := &queue[T]{}
	q.cond.L = &q.mu
	return q
}

// push adds v; it is dropped when the queue is closed.
func (q *queue[T]) push(v T) {
	if q.g != nil {
		q.g.push(v)
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return
	}
	q.items = append(q.items, v)
	q.cond.Signal()
}

// pop returns the oldest item, waiting for one; ok is false once the queue
// is closed and empty.
func (q *queue[T]) pop() (v T, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.head == len(q.items) && !q.closed {
		q.cond.Wait()
	}
	if q.head == len(q.items) {
		return v, false
	}
	var zero T
	v, q.items[q.head] = q.items[q.head], zero
	q.head++
	switch {
	case q.head == len(q.items):
		q.items, q.head = q.items[:0], 0
	case q.head >= compactAfter && 2*q.head >= len(q.items):
		// Half the array is popped: the rest moves to one of its size.
		// The walk lists far ahead of the transfers, so the array grows
		// to the whole tree's files, and the queue is not empty again
		// before the run's end; without this it would stay that large
		// (at 100,000 files, 14 MB of a 64 MB live heap). Each item is
		// copied at most once per pop that made room, so a pop stays
		// O(1) amortized.
		q.items, q.head = append([]T(nil), q.items[q.head:]...), 0
	}
	return v, true
}

// compactAfter is the fewest popped items at the head of the array worth
// moving the rest for.
const compactAfter = 1024

// close wakes every consumer; items already queued are still popped.
func (q *queue[T]) close() {
	if q.g != nil {
		q.g.close()
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed = true
	q.cond.Broadcast()
}
