package shelf

import (
	"errors"
	"testing"
)

func TestAdd_CountsItems(t *testing.T) {
	s := New(10)
	if err := s.Add("nut", 3); err != nil {
		t.Fatalf("Add(nut, 3) = %v", err)
	}
	if got := s.Count("nut"); got != 3 {
		t.Errorf("Count(nut) = %d, want 3", got)
	}
}

func TestAdd_RejectsNonPositive(t *testing.T) {
	s := New(10)
	for _, n := range []int{0, -1} {
		if err := s.Add("nut", n); !errors.Is(err, ErrCount) {
			t.Errorf("Add(nut, %d) = %v, want ErrCount", n, err)
		}
	}
}

func TestAdd_FillsTheShelfExactly(t *testing.T) {
	s := New(4)
	if err := s.Add("nut", 4); err != nil {
		t.Fatalf("Add(nut, 4) of room 4 = %v, want nil", err)
	}
	if err := s.Add("bolt", 1); !errors.Is(err, ErrFull) {
		t.Errorf("Add(bolt, 1) on a full shelf = %v, want ErrFull", err)
	}
	if got := s.Free(); got != 0 {
		t.Errorf("Free() = %d, want 0", got)
	}
}

func TestAddBoxes_AddsTheirItems(t *testing.T) {
	s := New(10)
	if err := s.AddBoxes("nut", 2); err != nil {
		t.Fatalf("AddBoxes(nut, 2) = %v", err)
	}
	if got := s.Count("nut"); got != 2 {
		t.Errorf("Count(nut) = %d, want 2", got)
	}
}

func TestTake_RemovesItems(t *testing.T) {
	s := New(10)
	s.Add("nut", 3)
	if err := s.Take("nut", 2); err != nil {
		t.Fatalf("Take(nut, 2) of 3 = %v", err)
	}
	if got := s.Count("nut"); got != 1 {
		t.Errorf("Count(nut) = %d, want 1", got)
	}
	if got := s.Free(); got != 9 {
		t.Errorf("Free() = %d, want 9", got)
	}
}

func TestTake_RefusesMoreThanThere(t *testing.T) {
	s := New(10)
	s.Add("nut", 1)
	if err := s.Take("nut", 2); !errors.Is(err, ErrNotEnough) {
		t.Errorf("Take(nut, 2) of 1 = %v, want ErrNotEnough", err)
	}
}

func TestAdjust_TakesWhenNegative(t *testing.T) {
	s := New(10)
	s.Add("nut", 3)
	if err := s.Adjust("nut", -2); err != nil {
		t.Fatalf("Adjust(nut, -2) of 3 = %v", err)
	}
	if got := s.Count("nut"); got != 1 {
		t.Errorf("Count(nut) = %d, want 1", got)
	}
}
