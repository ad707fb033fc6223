package nntp

import (
	"context"
	"errors"
)

// The methods below give a Session's answers in plain values, for a
// caller that does not name this package's types (package mirror's
// NewsSession).

// GroupCount selects a group as Group does and gives the reply's count,
// low and high water marks (RFC 3977 section 6.1.1.2).
func (s *Session) GroupCount(ctx context.Context, name string) (count, low, high int64, err error) {
	g, err := s.Group(ctx, name)
	return g.Count, g.Low, g.High, err
}

// OverviewIDs lists the numbers and Message-IDs of the selected group's
// articles first to last, as Overview does; ok is false when the server
// has no overview (ErrNoOverview).
func (s *Session) OverviewIDs(ctx context.Context, first, last int64) (nums []int64, ids []string, ok bool, err error) {
	lines, err := s.Overview(ctx, first, last)
	if errors.Is(err, ErrNoOverview) {
		return nil, nil, false, nil
	}
	if err != nil {
		return nil, nil, false, err
	}
	nums, ids = make([]int64, len(lines)), make([]string, len(lines))
	for i, l := range lines {
		nums[i], ids[i] = l.Number, l.MessageID
	}
	return nums, ids, true, nil
}

// ListNumbers is ArticleNumbers with ok false, and no error, when
// LISTGROUP cannot list the range (ErrNoListGroup): the caller then asks
// STAT for each number.
func (s *Session) ListNumbers(ctx context.Context, group string, first, last int64) (nums []int64, ok bool, err error) {
	nums, err = s.ArticleNumbers(ctx, group, first, last)
	if errors.Is(err, ErrNoListGroup) {
		return nil, false, nil
	}
	return nums, err == nil, err
}

// GroupNames lists the names of the groups matching wildmat, as
// ListActive does.
func (s *Session) GroupNames(ctx context.Context, wildmat string) ([]string, error) {
	groups, err := s.ListActive(ctx, wildmat)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(groups))
	for i, g := range groups {
		names[i] = g.Name
	}
	return names, nil
}
