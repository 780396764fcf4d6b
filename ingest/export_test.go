package ingest

import "time"

// Recheck is how long a file's stat stands for it.
const Recheck = recheck

// SetClock gives l's memory of repeated exchanges a clock of the test's.
func SetClock(l *Live, now func() time.Time) { l.repeats.now = now }
