package mirror

import (
	"path"
	"sync"
)

// groupQueue is a queue of items grouped by a key (a file's directory),
// for workers that each stay with one group: a worker takes the next item
// of the group it took its last one from while that group has any, else
// the oldest group no worker is in, else the group with the most items
// left. An FTP worker then changes directory once per directory it
// works in, not once per file (a FIFO shared by all hands each worker the
// files of every directory in turn).
type groupQueue[T any] struct {
	mu     sync.Mutex
	cond   sync.Cond
	key    func(T) string
	groups map[string]*group[T]
	order  []*group[T] // groups in the order of their first item; gone ones are skipped
	room   sync.Cond   // an item was popped, or the queue closed
	n      int         // items queued
	ahead  int         // the items beyond which pushAllWait waits; 0 for no bound
	closed bool
}

// group is the items of one key, and how many workers are in it.
type group[T any] struct {
	key     string
	items   []T
	head    int
	workers int
	gone    bool // emptied and out of groups
}

func newGroupQueue[T any](key func(T) string) *groupQueue[T] {
	q := &groupQueue[T]{key: key, groups: map[string]*group[T]{}}
	q.cond.L = &q.mu
	q.room.L = &q.mu
	return q
}

// pushAllWait adds vs once fewer than q.ahead items are queued (as
// queue.pushAllWait); they are dropped when the queue is closed.
func (q *groupQueue[T]) pushAllWait(vs []T) {
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

// push adds v to its group; it is dropped when the queue is closed.
func (q *groupQueue[T]) push(v T) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.add(v)
	q.cond.Signal()
}

// add puts v in its group, unless the queue is closed. q.mu is held.
func (q *groupQueue[T]) add(v T) {
	if q.closed {
		return
	}
	k := q.key(v)
	g := q.groups[k]
	if g == nil {
		g = &group[T]{key: k}
		q.groups[k] = g
		q.order = append(q.order, g)
	}
	g.items = append(g.items, v)
	q.n++
}

// pop returns an item for the worker whose place is *at (nil before its
// first item), waiting for one, and moves *at to the item's group; ok is
// false once the queue is closed and empty, or without wait, when it is
// empty.
func (q *groupQueue[T]) pop(at **group[T], wait bool) (v T, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for wait && q.n == 0 && !q.closed {
		q.cond.Wait()
	}
	if q.n == 0 {
		return v, false
	}
	g := *at
	if g != nil && g.gone {
		g = q.groups[g.key] // items pushed again since (again)
	}
	if g == nil {
		g = q.pick()
	}
	if g != *at {
		if *at != nil {
			(*at).workers--
		}
		g.workers++
		*at = g
	}
	var zero T
	v, g.items[g.head] = g.items[g.head], zero
	g.head++
	q.n--
	if q.ahead > 0 {
		q.room.Signal()
	}
	switch {
	case g.head == len(g.items):
		g.items, g.head, g.gone = nil, 0, true
		delete(q.groups, g.key)
	case g.head >= compactAfter && 2*g.head >= len(g.items):
		// As queue.pop: a long directory gives back the room of the
		// items popped.
		g.items, g.head = append([]T(nil), g.items[g.head:]...), 0
	}
	return v, true
}

// pick returns the oldest group with items that no worker is in, else the
// one with the most items left. Some group has items (q.n > 0).
func (q *groupQueue[T]) pick() *group[T] {
	for len(q.order) > 0 && q.order[0].gone {
		q.order[0] = nil
		q.order = q.order[1:]
	}
	var most *group[T]
	for _, g := range q.order {
		switch {
		case g.gone:
		case g.workers == 0:
			return g
		case most == nil || len(g.items)-g.head > len(most.items)-most.head:
			most = g
		}
	}
	return most
}

// close wakes every consumer; items already queued are still popped.
func (q *groupQueue[T]) close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed = true
	q.cond.Broadcast()
	q.room.Broadcast()
}

// fileQueue is the queue of files for the workers: grouped by directory
// for an FTP mirror, whose connections each stand in a directory, a FIFO
// elsewhere.
func (r *run) fileQueue() *queue[remoteFile] {
	if _, ok := r.w.(*ftpWalker); !ok {
		q := newQueue[remoteFile]()
		q.ahead = filesAhead
		return q
	}
	return newGroupedQueue(func(rf remoteFile) string { return path.Dir(rf.rel) }, filesAhead)
}
