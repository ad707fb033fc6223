package mirror

import "sync"

// queue is a FIFO shared by producers and consumers: the walk pushes
// directories and files as it finds them, so the tree is listed while
// files arrive. push never waits; pushAllWait, the walk's push of the
// files of a listing, waits while ahead items are queued, so that a walk
// that lists faster than the files are fetched (an HTTP index of a million
// files is listed in seconds) holds a bounded number of them, not the
// tree's.
type queue[T any] struct {
	mu     sync.Mutex
	cond   sync.Cond // an item was pushed, or the queue closed
	room   sync.Cond // an item was popped, or the queue closed
	items  []T
	head   int
	closed bool
	ahead  int // the items beyond which pushAllWait waits; 0 for no bound

	// g, when set, holds the items instead, grouped (newGroupedQueue):
	// push, pushAllWait and close go to it, and consumers pop with popAt.
	g *groupQueue[T]
}

// newGroupedQueue returns a queue whose items are grouped by key, for
// consumers that each stay with one group (groupQueue, popAt), and whose
// pushAllWait waits while ahead items are queued.
func newGroupedQueue[T any](key func(T) string, ahead int) *queue[T] {
	q := newQueue[T]()
	q.g = newGroupQueue(key)
	q.g.ahead = ahead
	return q
}

// popAt is pop for a consumer whose place is *at (groupQueue.pop); on a
// queue not grouped it is pop. Without wait it does not wait: ok is false
// when no item is queued.
func (q *queue[T]) popAt(at **group[T], wait bool) (T, bool) {
	if q.g == nil {
		return q.take(wait)
	}
	return q.g.pop(at, wait)
}

func newQueue[T any]() *queue[T] {
	q := &queue[T]{}
	q.cond.L = &q.mu
	q.room.L = &q.mu
	return q
}

// filesAhead is how many files the walk queues ahead of the workers
// before its listers wait for room: many directories' worth for the
// workers to choose from, and a few megabytes of remoteFile values.
const filesAhead = 8192

// pushAllWait adds vs, together, once fewer than q.ahead items wait in
// the queue; they are dropped when the queue is closed. The files of one
// listing stay together, in their order: listers waiting side by side
// and pushing a file each as room came would interleave their
// directories, and a worker, taking files in turn, would change
// directory (an FTP CWD) for each. Only a producer that is not a consumer
// may wait: a worker that pushed into the queue it pops from could wait
// for itself.
func (q *queue[T]) pushAllWait(vs []T) {
	if q.g != nil {
		q.g.pushAllWait(vs)
		return
	}
	if len(vs) == 0 {
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.ahead > 0 && len(q.items)-q.head >= q.ahead && !q.closed {
		q.room.Wait()
	}
	if q.closed {
		return
	}
	q.items = append(q.items, vs...)
	q.cond.Broadcast()
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
func (q *queue[T]) pop() (v T, ok bool) { return q.take(true) }

// take is pop, or without wait, the oldest item if there is one.
func (q *queue[T]) take(wait bool) (v T, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for wait && q.head == len(q.items) && !q.closed {
		q.cond.Wait()
	}
	if q.head == len(q.items) {
		return v, false
	}
	var zero T
	v, q.items[q.head] = q.items[q.head], zero
	q.head++
	if q.ahead > 0 {
		q.room.Signal()
	}
	switch {
	case q.head == len(q.items):
		q.items, q.head = q.items[:0], 0
	case q.head >= compactAfter && 2*q.head >= len(q.items):
		// Half the array is popped: the rest moves to one of its size.
		// A queue that is not empty again before the run's end (the
		// directories of a large tree, files pushed back by retries)
		// would otherwise keep its largest array. Each item is copied
		// at most once per pop that made room, so a pop stays O(1)
		// amortized.
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
	q.room.Broadcast()
}
