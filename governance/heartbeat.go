package governance

import (
	"time"
)

// Beat intervals chosen from the number of new events (docs/heartbeat.md).
const (
	IntervalBusy  = 60 * time.Second
	IntervalSome  = 300 * time.Second
	IntervalIdle  = 900 * time.Second
	busyThreshold = 10
)

// NextInterval is 60 s after ≥ 10 new events, 300 s after ≥ 1, else 900 s.
func NextInterval(newEvents int) time.Duration {
	switch {
	case newEvents >= busyThreshold:
		return IntervalBusy
	case newEvents >= 1:
		return IntervalSome
	}
	return IntervalIdle
}

// BeatRecord is one row of the beat history.
type BeatRecord struct {
	ID         int64      `json:"id"`
	Trigger    string     `json:"trigger"`
	StartedAt  time.Time  `json:"started_at"`
	FinishedAt *time.Time `json:"finished_at,omitempty"`
	BeatStats
	Errors     string     `json:"errors,omitempty"`
	NextBeatAt *time.Time `json:"next_beat_at,omitempty"`
}

// HeartbeatStatus is a snapshot for the console.
type HeartbeatStatus struct {
	Running  bool
	Progress BeatProgress
	Last     *BeatRecord
	Next     time.Time
}

// BeatProgress says how far a running beat is.
type BeatProgress struct {
	Project       string
	ProjectsDone  int
	ProjectsTotal int
}

// ErrForgotMeanwhile is returned by ApplyBeatPlan when a forget committed in
// the project after the plan's input was read: nothing was written, and the
// beat consolidates again from what is left.
var ErrForgotMeanwhile = Errorf(ECONFLICT, "A forget committed while the beat was running; the beat starts again.")

// ErrBeatMeanwhile is returned by ApplyBeatPlan when another beat of the
// project (another console instance's) committed after the plan's input
// was read: nothing was written, and the beat consolidates again from the
// state that beat left.
var ErrBeatMeanwhile = Errorf(ECONFLICT, "Another beat of the project committed while this one was running; the beat starts again.")
