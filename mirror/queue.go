package mirror

import "sync"

// queue is a FIFO shared by producers and consumers: the walk pushes
// directories and files as it finds them, so the tree is listed while
// files arrive. push never waits; pushAllWait, the walk's push of the
// files of a listing, waits while ahead items are queued, so that a walk
// that lists faster than the files are fetched (an HTTP index of a million
// files is listed in seconds) holds a bounded number of them, not the
// tree's. A queue made by newGroupedQueue holds its items by group
// instead (affinity.go).
type queue[T any] struct {
	mu     sync.Mutex
	cond   sync.Cond // an item was pushed, or the queue closed
	room   sync.Cond // an item was popped, or the queue closed
	n      int       // items queued
	closed bool
	ahead  int // the items beyond which pushAllWait waits; 0 for no bound

	// key, when set, groups the items (newGroupedQueue), in groups
	// and order; nil keeps them all in fifo.
	key    func(T) string
	fifo   group[T]
	groups map[string]*group[T]
	order  []*group[T] // groups in the order of their first item; gone ones are skipped
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
	if len(vs) == 0 {
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.ahead > 0 && q.n >= q.ahead && !q.closed {
		q.room.Wait()
	}
	for _, v := range vs {
		q.add(v)
	}
	q.cond.Broadcast()
}

// push adds v; it is dropped when the queue is closed.
func (q *queue[T]) push(v T) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.add(v)
	q.cond.Signal()
}

// add puts v in its group, unless the queue is closed. q.mu is held.
func (q *queue[T]) add(v T) {
	if q.closed {
		return
	}
	g := &q.fifo
	if q.key != nil {
		k := q.key(v)
		if g = q.groups[k]; g == nil {
			g = &group[T]{key: k}
			q.groups[k] = g
			q.order = append(q.order, g)
		}
	}
	g.items = append(g.items, v)
	q.n++
}

// pop returns the oldest item of a queue not grouped, waiting for one; ok
// is false once the queue is closed and empty.
func (q *queue[T]) pop() (v T, ok bool) { return q.popAt(nil, true) }

// popAt returns an item, waiting for one unless wait is false: the
// oldest, or of a grouped queue, one for the consumer whose place is
// *at (see place). ok is false once the queue is closed and empty, or
// without wait, when it is empty.
func (q *queue[T]) popAt(at **group[T], wait bool) (v T, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for wait && q.n == 0 && !q.closed {
		q.cond.Wait()
	}
	if q.n == 0 {
		return v, false
	}
	g := &q.fifo
	if q.key != nil {
		g = q.place(at)
	}
	var zero T
	v, g.items[g.head] = g.items[g.head], zero
	g.head++
	q.n--
	if q.ahead > 0 {
		q.room.Signal()
	}
	switch {
	case g.head == len(g.items) && q.key == nil:
		g.items, g.head = g.items[:0], 0
	case g.head == len(g.items):
		g.items, g.head, g.gone = nil, 0, true
		delete(q.groups, g.key)
	case g.head >= compactAfter && 2*g.head >= len(g.items):
		// Half the array is popped: the rest moves to one of its size.
		// A queue that is not empty again before the run's end (the
		// directories of a large tree, files pushed back by retries)
		// would otherwise keep its largest array. Each item is copied
		// at most once per pop that made room, so a pop stays O(1)
		// amortized.
		g.items, g.head = append([]T(nil), g.items[g.head:]...), 0
	}
	return v, true
}

// compactAfter is the fewest popped items at the head of the array worth
// moving the rest for.
const compactAfter = 1024

// close wakes every consumer; items already queued are still popped.
func (q *queue[T]) close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed = true
	q.cond.Broadcast()
	q.room.Broadcast()
}
