package mutants

// Catalog returns the eight documented faults of package lease, one per
// step of the contract, in step order. Each call returns fresh values.
func Catalog() []*Mutant {
	return []*Mutant{
		{
			ID:        "init-not-idempotent",
			Step:      1,
			Title:     "the schema loses IF NOT EXISTS",
			Contract:  "Open creates the file and the jobs table idempotently.",
			Rationale: "If a worker restart reset the generation, expired tokens would become valid again.",
			Seed:      "CREATE TABLE jobs",
			Target:    "schema",
			Kind:      String,
			Find:      "CREATE TABLE IF NOT EXISTS jobs",
			Replace:   "CREATE TABLE jobs",
		},
		{
			ID:        "enqueue-replace",
			Step:      2,
			Title:     "a duplicate registration replaces the row",
			Contract:  "Enqueue inserts a missing id with the default state and returns true; for an existing id the state is unchanged and it returns false.",
			Rationale: "Use INSERT OR IGNORE, so that a duplicate registration cannot reset a lease in flight.",
			Seed:      "INSERT OR REPLACE INTO jobs",
			Target:    "Store.Enqueue",
			Kind:      String,
			Find:      "INSERT OR IGNORE",
			Replace:   "INSERT OR REPLACE",
		},
		{
			ID:        "state-empty-not-nil",
			Step:      3,
			Title:     "a missing job reads as an empty record",
			Contract:  "State returns the stored row; a missing id returns nil.",
			Rationale: "Read stored state through a separate connection, to tell it apart from any in-process cache.",
			Seed:      "if row else {}",
			Target:    "Store.State",
			Kind:      Stmt,
			Find:      "return nil, nil",
			Replace:   "return &Job{}, nil",
		},
		{
			ID:        "claim-boundary",
			Step:      4,
			Title:     "the expiry comparison in Claim is inclusive",
			Contract:  "Claim returns 0 for a missing job, a done job, or until > now; otherwise it stores owner and until = now+ttl, increments the fence and returns it. At now == until the job may be reassigned.",
			Rationale: "Read and update inside one BEGIN IMMEDIATE; at the boundary now == until the lease has expired.",
			Seed:      "row[0] >= now",
			Target:    "Store.Claim",
			Kind:      Expr,
			Find:      "until > now",
			Replace:   "until >= now",
		},
		{
			ID:        "renew-expired",
			Step:      5,
			Title:     "Renew accepts a lease at its exact expiry",
			Contract:  "Renew succeeds only when owner and fence match, done = 0 and until > now.",
			Rationale: "Renewing an already-expired ownership would collide with the new worker.",
			Seed:      `AND until>=?", (now+ttl`,
			Target:    "Store.Renew",
			Kind:      String,
			Find:      "until>?",
			Replace:   "until>=?",
		},
		{
			ID:        "complete-twice",
			Step:      6,
			Title:     "a done job can be completed again",
			Contract:  "Complete stores the result only under a live lease (owner and fence match, done = 0, until > now); otherwise it returns false and keeps the existing result.",
			Rationale: "Completion must pass the same lease check, to stop the late worker.",
			Seed:      `AND done>=0 AND until>?", (result`,
			Target:    "Store.Complete",
			Kind:      String,
			Find:      "done=0",
			Replace:   "done>=0",
		},
		{
			ID:        "release-resets-fence",
			Step:      7,
			Title:     "Release also resets the fence",
			Contract:  "Release clears owner and until for the current holder of a job that is not done; the fence is kept.",
			Rationale: "Resetting the fence on release would reuse old token numbers.",
			Seed:      "SET owner=NULL,until=0,fence=0 WHERE",
			Target:    "Store.Release",
			Kind:      String,
			Find:      "SET owner=NULL, until=0 WHERE",
			Replace:   "SET owner=NULL, until=0, fence=0 WHERE",
		},
		{
			ID:        "claim-many-first-only",
			Step:      8,
			Title:     "ClaimMany tries only the first owner",
			Contract:  "ClaimMany claims for every owner at the same time and returns the fences in input order; for a fresh job exactly one owner gets a fence, all others 0.",
			Rationale: "Do not query, close the connection, then update: one lock must cover both.",
			Seed:      "return [claim(path,job_id,owners[0],now,ttl)]",
			Target:    "Store.ClaimMany",
			Kind:      Body,
			Find: `if _, err := leaseEnd(now, ttl); err != nil {
	return nil, err
}
for _, owner := range owners {
	if err := checkHolder(id, owner); err != nil {
		return nil, err
	}
}
fences := make([]int64, len(owners))
errs := make([]error, len(owners))
var wg sync.WaitGroup
for i, owner := range owners {
	wg.Go(func() {
		fences[i], errs[i] = s.Claim(ctx, id, owner, now, ttl)
	})
}
wg.Wait()
return fences, errors.Join(errs...)`,
			Replace: `fence, err := s.Claim(ctx, id, owners[0], now, ttl)
return []int64{fence}, err`,
		},
	}
}
