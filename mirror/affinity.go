package mirror

import "path"

// A grouped queue (newGroupedQueue) holds its items by a key (a file's
// directory), for workers that each stay with one group: a worker takes
// the next item of the group it took its last one from while that group
// has any, else the oldest group no worker is in, else the group with the
// most items left. An FTP worker then changes directory once per
// directory it works in, not once per file (a FIFO shared by all hands
// each worker the files of every directory in turn).

// group is the items of one key, and how many workers are in it.
type group[T any] struct {
	key     string
	items   []T
	head    int
	workers int
	gone    bool // emptied and out of groups
}

// newGroupedQueue returns a queue whose items are grouped by key, for
// consumers that each stay with one group (popAt), and whose
// pushAllWait waits while ahead items are queued.
func newGroupedQueue[T any](key func(T) string, ahead int) *queue[T] {
	q := newQueue[T]()
	q.key, q.groups, q.ahead = key, map[string]*group[T]{}, ahead
	return q
}

// place returns the group the worker whose place is *at (nil before its
// first item) pops from next, and moves *at to it. Some group has items
// (q.n > 0); q.mu is held.
func (q *queue[T]) place(at **group[T]) *group[T] {
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
	return g
}

// pick returns the oldest group with items that no worker is in, else the
// one with the most items left. Some group has items (q.n > 0).
func (q *queue[T]) pick() *group[T] {
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
