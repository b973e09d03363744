package storetest

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestTwoInstancesBeat: two console instances on one database (a and b)
// beat one project at the same time, as during a leader change. The beat
// that read its input before the other committed is refused
// (governance.ErrBeatMeanwhile), consolidates again and finds the work
// done: each session's candidates and proposals are written once, as the
// one beat on ref (an empty store of the same backend) writes them.
func TestTwoInstancesBeat(t *testing.T, a, b, ref MemoryStore) {
	t.Helper()
	ctx := context.Background()
	now := time.Now().UTC()
	events := append(Session("s1", now.Add(-48*time.Hour), true, "we always travel light", "FAILED cross district"),
		Session("s2", now.Add(-24*time.Hour), true, "FAILED cross district", "maybe a hotel near the lake")...)
	for _, s := range []MemoryStore{a, ref} {
		p := MustCreateProject(t, s, "travel")
		if _, err := s.IngestEvents(ctx, p.ID, events); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := NewHeartbeat(ref, &LineExtractor{}, nil).Beat(ctx, "test"); err != nil {
		t.Fatal(err)
	}

	x := NewGatedExtractor()
	done := make(chan error, 1)
	go func() { _, err := NewHeartbeat(a, x, nil).Beat(ctx, "test"); done <- err }()
	<-x.Started // a has read its input and is extracting
	if _, err := NewHeartbeat(b, &LineExtractor{}, nil).Beat(ctx, "test"); err != nil {
		t.Fatal(err)
	}
	close(x.Release)
	if err := <-done; err != nil {
		t.Fatalf("beat on the other instance: %v", err)
	}
	if got, want := MemoryContent(t, a), MemoryContent(t, ref); got != want {
		t.Fatalf("two instances beating at once differ from one beat:\n%s", LineDiff(want, got, "one beat", "two instances"))
	}
}

// LineDiff lists the lines only one of a and b has, each marked with the
// name of the side that has it.
func LineDiff(a, b, aName, bName string) string {
	count := map[string]int{}
	for _, l := range strings.Split(a, "\n") {
		count[l]++
	}
	for _, l := range strings.Split(b, "\n") {
		count[l]--
	}
	var out []string
	for l, n := range count {
		switch {
		case n > 0:
			out = append(out, "- "+aName+": "+l)
		case n < 0:
			out = append(out, "+ "+bName+": "+l)
		}
	}
	slices.Sort(out)
	return strings.Join(out, "\n")
}
