package syntax

import (
	"context"
	"maps"
	"sync/atomic"
	"time"
)

// ParseSummary describes a ParseAll run.
type ParseSummary struct {
	Files    int                `json:"files"`  // files listed
	Parsed   int                `json:"parsed"` // files parsed
	Skipped  map[SkipReason]int `json:"skipped"`
	Bytes    int64              `json:"bytes"` // bytes of the parsed files
	Duration time.Duration      `json:"duration_ns"`
}

// ParseAll lists, reads and parses the files of opts.Root as Build does, in
// parallel and with the same skip rules, and keeps nothing: it measures
// what tree-sitter alone costs, the floor under an index's time.
func ParseAll(ctx context.Context, opts IndexOptions) (ParseSummary, error) {
	start := time.Now()
	sum := ParseSummary{Skipped: map[SkipReason]int{}}
	plan, err := opts.plan(ctx)
	if err != nil {
		return sum, err
	}
	defer plan.fs.Close()
	paths, workers := plan.paths, plan.workers
	sum.Files = plan.listed
	maps.Copy(sum.Skipped, plan.skipped)
	reasons := make([]SkipReason, len(paths))
	var next, parsed, bytes atomic.Int64
	err = parallel(ctx, workers, func(ctx context.Context) error {
		x := NewExtractor(plan.extractorOptions(opts))
		defer x.Close()
		for {
			i := int(next.Add(1) - 1)
			if i >= len(paths) {
				return nil
			}
			src, err := plan.fs.ReadFile(paths[i])
			if err != nil {
				continue // deleted since listing, or not a regular file
			}
			reason, err := x.Parse(ctx, paths[i], src)
			if err != nil {
				return err
			}
			if reasons[i] = reason; reason == SkipNone {
				parsed.Add(1)
				bytes.Add(int64(len(src)))
			}
		}
	})
	for _, r := range reasons {
		if r != SkipNone {
			sum.Skipped[r]++
		}
	}
	sum.Parsed, sum.Bytes = int(parsed.Load()), bytes.Load()
	sum.Duration = time.Since(start)
	return sum, err
}
