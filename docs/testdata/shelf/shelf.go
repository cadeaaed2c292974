// Package shelf counts the items on a shelf of limited room.
package shelf

import "errors"

// Errors of a Shelf.
var (
	ErrCount     = errors.New("shelf: the count must be positive")
	ErrFull      = errors.New("shelf: no room for that many")
	ErrNotEnough = errors.New("shelf: not enough items")
)

// perBox is how many items a box holds.
const perBox = 1

// Shelf holds counted items, at most Room of them.
type Shelf struct {
	Room  int
	items map[string]int
	total int
}

// New returns an empty shelf with room for room items.
func New(room int) *Shelf {
	return &Shelf{Room: room, items: map[string]int{}}
}

// Add puts n items of name on the shelf.
func (s *Shelf) Add(name string, n int) error {
	if n <= 0 {
		return ErrCount
	}
	if s.total+n > s.Room {
		return ErrFull
	}
	s.items[name] += n
	s.total += n
	return nil
}

// AddBoxes puts boxes boxes of name on the shelf.
func (s *Shelf) AddBoxes(name string, boxes int) error {
	return s.Add(name, boxes*perBox)
}

// Take removes n items of name from the shelf.
func (s *Shelf) Take(name string, n int) error {
	if n <= 0 {
		return ErrCount
	}
	if s.items[name] < n {
		return ErrNotEnough
	}
	s.items[name] -= n
	s.total -= n
	return nil
}

// Count returns how many items of name the shelf holds.
func (s *Shelf) Count(name string) int {
	return s.items[name]
}

// Free returns how many more items fit.
func (s *Shelf) Free() int {
	return s.Room - s.total
}

// Adjust adds delta items of name, or takes -delta of them when delta is
// negative.
func (s *Shelf) Adjust(name string, delta int) error {
	if delta < 0 {
		return s.Take(name, abs(delta))
	}
	return s.Add(name, delta)
}

func abs(n int) int {
	if n < 0 {
		n = -n
	}
	return n
}
