package lease_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/fencelab/fencelab/lease"
)

// The model test drives random sequences of every operation, with a clock
// that the test advances, against a store and against model, a plain map
// that follows the contract line by line. Every return value and, after every
// step, every stored job must agree.

var (
	// Ids and owners are compared byte for byte: "a" and "A" are other
	// jobs and other owners, and " " is an owner.
	modelIDs    = []string{"a", "b", "A"}
	modelOwners = []string{"A", "B", "a", " "}
	// Multiples of 0.5 are exact in float64, so now lands on until exactly.
	modelTTLs  = []float64{0.5, 1, 2, 5}
	modelSteps = []float64{0, 0.5, 1, 2.5}
)

// model is the contract, without SQL.
type model map[string]lease.Job

func (m model) claimable(id string, now float64) bool {
	j, ok := m[id]
	return ok && !j.Done && j.Until <= now
}

func (m model) live(id, owner string, fence int64, now float64) bool {
	j, ok := m[id]
	return ok && j.Owner == owner && j.Fence == fence && !j.Done && j.Until > now
}

// The contract's operations: each changes m as the store must change the
// job, and returns what the store must return. The linearizability test
// checks its histories against the same functions.

func (m model) enqueue(id string) bool {
	if _, ok := m[id]; ok {
		return false
	}
	m[id] = lease.Job{ID: id}
	return true
}

func (m model) claim(id, owner string, now, ttl float64) (int64, error) {
	if !m.claimable(id, now) {
		return 0, nil
	}
	if m[id].Fence == math.MaxInt64 {
		return 0, lease.ErrFenceExhausted // fences never go back
	}
	fence := m[id].Fence + 1
	m[id] = lease.Job{ID: id, Owner: owner, Until: now + ttl, Fence: fence}
	return fence, nil
}

func (m model) renew(id, owner string, fence int64, now, ttl float64) bool {
	if !m.live(id, owner, fence, now) {
		return false
	}
	j := m[id]
	j.Until = now + ttl
	m[id] = j
	return true
}

func (m model) complete(id, owner string, fence int64, now float64, result string) bool {
	if !m.live(id, owner, fence, now) {
		return false
	}
	j := m[id]
	j.Result, j.Done = result, true
	m[id] = j
	return true
}

func (m model) release(id, owner string, fence int64) bool {
	j, ok := m[id]
	if !ok || j.Owner != owner || j.Fence != fence || j.Done {
		return false
	}
	j.Owner, j.Until = "", 0
	m[id] = j
	return true
}

type machine struct {
	path  string
	store *lease.Store
	now   float64
	model model
}

func (mc *machine) id(t *rapid.T) string    { return rapid.SampledFrom(modelIDs).Draw(t, "id") }
func (mc *machine) owner(t *rapid.T) string { return rapid.SampledFrom(modelOwners).Draw(t, "owner") }
func (mc *machine) ttl(t *rapid.T) float64  { return rapid.SampledFrom(modelTTLs).Draw(t, "ttl") }

// holder draws the job's current owner half the time, or else any owner:
// a renewal, completion or release by the holder is the case that needs
// every condition checked.
func (mc *machine) holder(t *rapid.T, id string) string {
	if j := mc.model[id]; j.Owner != "" && rapid.Bool().Draw(t, "byHolder") {
		return j.Owner
	}
	return mc.owner(t)
}

// fence draws the job's current fence half the time, or else one that is
// stale (the one before) or was never granted: the next one, one further,
// the largest there is.
func (mc *machine) fence(t *rapid.T, id string) int64 {
	f := mc.model[id].Fence
	if rapid.Bool().Draw(t, "current") {
		return f
	}
	next := min(f, math.MaxInt64-1) + 1
	return rapid.SampledFrom([]int64{max(f, 1) - 1, next, min(next, math.MaxInt64-1) + 1, math.MaxInt64}).Draw(t, "fence")
}

func (mc *machine) Enqueue(t *rapid.T) {
	id := mc.id(t)
	added, err := mc.store.Enqueue(t.Context(), id)
	if want := mc.model.enqueue(id); err != nil || added != want {
		t.Fatalf("Enqueue(%q) = %v, %v; want %v, nil", id, added, err, want)
	}
}

func (mc *machine) Claim(t *rapid.T) {
	mc.claim(t, mc.id(t), mc.owner(t), mc.ttl(t))
}

func (mc *machine) claim(t *rapid.T, id, owner string, ttl float64) {
	got, err := mc.store.Claim(t.Context(), id, owner, mc.now, ttl)
	want, wantErr := mc.model.claim(id, owner, mc.now, ttl)
	if !errors.Is(err, wantErr) || err == nil && wantErr != nil || got != want {
		t.Fatalf("Claim(%q, %q, now=%v, ttl=%v) = %d, %v; want %d, %v", id, owner, mc.now, ttl, got, err, want, wantErr)
	}
}

func (mc *machine) Renew(t *rapid.T) {
	id, ttl := mc.id(t), mc.ttl(t)
	mc.renew(t, id, mc.holder(t, id), mc.fence(t, id), ttl)
}

func (mc *machine) renew(t *rapid.T, id, owner string, fence int64, ttl float64) {
	got, err := mc.store.Renew(t.Context(), id, owner, fence, mc.now, ttl)
	want := mc.model.renew(id, owner, fence, mc.now, ttl)
	if err != nil || got != want {
		t.Fatalf("Renew(%q, %q, fence=%d, now=%v, ttl=%v) = %v, %v; want %v, nil", id, owner, fence, mc.now, ttl, got, err, want)
	}
}

func (mc *machine) Complete(t *rapid.T) {
	id := mc.id(t)
	mc.complete(t, id, mc.holder(t, id), mc.fence(t, id))
}

func (mc *machine) complete(t *rapid.T, id, owner string, fence int64) {
	result := rapid.StringMatching(`[a-z]{0,3}`).Draw(t, "result")
	got, err := mc.store.Complete(t.Context(), id, owner, fence, mc.now, result)
	want := mc.model.complete(id, owner, fence, mc.now, result)
	if err != nil || got != want {
		t.Fatalf("Complete(%q, %q, fence=%d, now=%v) = %v, %v; want %v, nil", id, owner, fence, mc.now, got, err, want)
	}
}

func (mc *machine) Release(t *rapid.T) {
	id := mc.id(t)
	owner := mc.holder(t, id)
	fence := mc.fence(t, id)
	got, err := mc.store.Release(t.Context(), id, owner, fence)
	want := mc.model.release(id, owner, fence)
	if err != nil || got != want {
		t.Fatalf("Release(%q, %q, fence=%d) = %v, %v; want %v, nil", id, owner, fence, got, err, want)
	}
}

// ClaimMany has one owner claim several times at once. Which of the calls
// wins is up to the scheduler; with one owner the stored state does not
// depend on it, so every run of a sequence checks the same states.
func (mc *machine) ClaimMany(t *rapid.T) {
	id, owner, ttl := mc.id(t), mc.owner(t), mc.ttl(t)
	owners := slices.Repeat([]string{owner}, rapid.IntRange(1, 4).Draw(t, "n"))
	got, err := mc.store.ClaimMany(t.Context(), id, owners, mc.now, ttl)
	if mc.model.claimable(id, mc.now) && mc.model[id].Fence == math.MaxInt64 {
		if !errors.Is(err, lease.ErrFenceExhausted) || len(winners(got)) != 0 {
			t.Fatalf("ClaimMany(%q, %q) at the last fence = %v, %v; want no winner, ErrFenceExhausted", id, owners, got, err)
		}
		return
	}
	if err != nil || len(got) != len(owners) {
		t.Fatalf("ClaimMany(%q, %q) = %v, %v; want %d fences, nil", id, owners, got, err, len(owners))
	}
	won := winners(got)
	if !mc.model.claimable(id, mc.now) {
		if len(won) != 0 {
			t.Fatalf("ClaimMany(%q, %q, now=%v) = %v, want no winner", id, owners, mc.now, got)
		}
		return
	}
	want := mc.model[id].Fence + 1
	if len(won) != 1 || got[won[0]] != want {
		t.Fatalf("ClaimMany(%q, %q, now=%v) = %v, want exactly one fence %d", id, owners, mc.now, got, want)
	}
	mc.model[id] = lease.Job{ID: id, Owner: owners[won[0]], Until: mc.now + ttl, Fence: want}
}

// LastFences sets a job's fence, by hand, to the last or the one but last
// there are, so that claims meet the limit.
func (mc *machine) LastFences(t *rapid.T) {
	id := mc.id(t)
	j, ok := mc.model[id]
	if !ok {
		t.Skip("no such job yet")
	}
	j.Fence = math.MaxInt64 - rapid.Int64Range(0, 1).Draw(t, "below")
	db, err := sql.Open("sqlite", "file:"+mc.path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`UPDATE jobs SET fence=? WHERE id=?`, j.Fence, id); err != nil {
		t.Fatal(err)
	}
	mc.model[id] = j
}

func (mc *machine) AdvanceClock(t *rapid.T) {
	mc.now += rapid.SampledFrom(modelSteps).Draw(t, "dt")
}

// AdvanceToAnExpiry moves the clock to the moment a job's lease expires,
// where the contract turns: at now == until the lease is no longer live.
// Then, at that very moment, its holder may try to renew or complete it
// with its fence, or another owner to claim it.
func (mc *machine) AdvanceToAnExpiry(t *rapid.T) {
	id := mc.id(t)
	j, ok := mc.model[id]
	if !ok || j.Until <= mc.now {
		t.Skip("no lease of that job ahead")
	}
	mc.now = j.Until
	switch rapid.SampledFrom([]string{"renew", "complete", "claim", "nothing"}).Draw(t, "atExpiry") {
	case "renew":
		mc.renew(t, id, j.Owner, j.Fence, mc.ttl(t))
	case "complete":
		mc.complete(t, id, j.Owner, j.Fence)
	case "claim":
		mc.claim(t, id, mc.owner(t), mc.ttl(t))
	}
}

// Reopen closes the store and opens the file again, as a restarted worker.
func (mc *machine) Reopen(t *rapid.T) {
	if err := mc.store.Close(); err != nil {
		t.Fatalf("Close() error = %v", err)
	}
	s, err := lease.Open(mc.path)
	if err != nil {
		t.Fatalf("Open() after Close error = %v", err)
	}
	mc.store = s
}

// InvalidTTL makes a call with a ttl that must be rejected; Check then
// confirms that nothing changed.
func (mc *machine) InvalidTTL(t *rapid.T) {
	id, owner := mc.id(t), mc.owner(t)
	ttl := rapid.SampledFrom([]float64{0, -0.5, -1}).Draw(t, "badTTL")
	var err error
	switch op := rapid.SampledFrom([]string{"claim", "renew", "claimMany"}).Draw(t, "op"); op {
	case "claim":
		_, err = mc.store.Claim(t.Context(), id, owner, mc.now, ttl)
	case "renew":
		_, err = mc.store.Renew(t.Context(), id, owner, mc.model[id].Fence, mc.now, ttl)
	case "claimMany":
		_, err = mc.store.ClaimMany(t.Context(), id, []string{owner}, mc.now, ttl)
	}
	if !errors.Is(err, lease.ErrInvalidTTL) {
		t.Fatalf("ttl=%v: error = %v, want ErrInvalidTTL", ttl, err)
	}
}

// EndedContext makes any call under a context that has ended: it must
// fail with the context's error, and Check then confirms that nothing
// changed.
func (mc *machine) EndedContext(t *rapid.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	id, owner, ttl := mc.id(t), mc.owner(t), mc.ttl(t)
	fence := mc.fence(t, id)
	var err error
	op := rapid.SampledFrom([]string{"enqueue", "state", "claim", "renew", "complete", "release", "claimMany"}).Draw(t, "op")
	switch op {
	case "enqueue":
		_, err = mc.store.Enqueue(ctx, id)
	case "state":
		var j *lease.Job
		if j, err = mc.store.State(ctx, id); j != nil {
			t.Fatalf("State(%q, ended context) = %+v, want nil and an error", id, *j)
		}
	case "claim":
		_, err = mc.store.Claim(ctx, id, owner, mc.now, ttl)
	case "renew":
		_, err = mc.store.Renew(ctx, id, owner, fence, mc.now, ttl)
	case "complete":
		_, err = mc.store.Complete(ctx, id, owner, fence, mc.now, "late")
	case "release":
		_, err = mc.store.Release(ctx, id, owner, fence)
	case "claimMany":
		_, err = mc.store.ClaimMany(ctx, id, []string{owner, owner}, mc.now, ttl)
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("%s(%q) under an ended context: error = %v, want context.Canceled", op, id, err)
	}
}

// Check compares every job with the model after each step.
func (mc *machine) Check(t *rapid.T) {
	for _, id := range modelIDs {
		got, err := mc.store.State(t.Context(), id)
		if err != nil {
			t.Fatalf("State(%q) error = %v", id, err)
		}
		want, ok := mc.model[id]
		switch {
		case !ok && got != nil:
			t.Fatalf("State(%q) = %+v, want nil (never enqueued)", id, *got)
		case ok && got == nil:
			t.Fatalf("State(%q) = nil, want %+v", id, want)
		case ok && *got != want:
			t.Fatalf("State(%q) = %+v, want %+v", id, *got, want)
		}
	}
}

func TestModel_RandomOperationsFollowTheContract(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	run := 0
	rapid.Check(t, func(t *rapid.T) {
		run++
		path := filepath.Join(dir, fmt.Sprintf("model-%d.db", run))
		s, err := lease.Open(path)
		if err != nil {
			t.Fatalf("Open() error = %v", err)
		}
		mc := &machine{path: path, store: s, model: model{}}
		defer func() { mc.store.Close() }()
		t.Repeat(rapid.StateMachineActions(mc))
	})
}
