package postgres

import (
	"container/list"
	"context"
	"crypto/sha256"
	"fmt"
	"strconv"
	"sync"

	"github.com/mnemo-console/mnemo/governance"
)

// searchWindows keeps, in each instance's memory, the ranked windows of
// its recent searches of one project most relevant first: the seqs of the
// window (the newest searchRankWindow matches) in rank order, under the
// project's event version (migration 0026) they were read at. Ranking a
// common word scores every event of its window (2,000 of them) and reads
// the project's newest events until it has found them; a window kept
// turns the next page of that search, and the same search again, into one
// read of the page's events by seq. That read also reads the project's
// version, in the same statement (one snapshot): a window is used only
// while no event of the project has been inserted, changed, redacted or
// deleted since, on any instance, and is read again otherwise. Entries
// hold a hash of the search (never its words) and seqs (never a text), so
// a forget leaves nothing of what it removed here; the least recently
// used entry goes past maxSearchWindows.
type searchWindows struct {
	mu      sync.Mutex
	max     int
	entries map[[sha256.Size]byte]*list.Element
	lru     list.List // of *searchWindow, most recent first
	// hits and misses count lookups, stale the windows found out of date
	// (tests, benchmarks).
	hits, misses, stale int
}

type searchWindow struct {
	key     [sha256.Size]byte
	version int64
	seqs    []int64
}

// maxSearchWindows bounds an instance's windows: at most 16 KB each.
const maxSearchWindows = 256

func newSearchWindows(max int) *searchWindows {
	return &searchWindows{max: max, entries: map[[sha256.Size]byte]*list.Element{}}
}

func (c *searchWindows) get(key [sha256.Size]byte) (*searchWindow, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[key]
	if !ok {
		c.misses++
		return nil, false
	}
	c.hits++
	c.lru.MoveToFront(el)
	return el.Value.(*searchWindow), true
}

func (c *searchWindows) put(w *searchWindow) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[w.key]; ok {
		el.Value = w
		c.lru.MoveToFront(el)
		return
	}
	c.entries[w.key] = c.lru.PushFront(w)
	for c.lru.Len() > c.max {
		last := c.lru.Back()
		delete(c.entries, last.Value.(*searchWindow).key)
		c.lru.Remove(last)
	}
}

// drop forgets a window read at a version that is no longer the
// project's.
func (c *searchWindows) drop(w *searchWindow) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stale++
	if el, ok := c.entries[w.key]; ok && el.Value == w {
		delete(c.entries, w.key)
		c.lru.Remove(el)
	}
}

// windowKey identifies a ranked search: its conditions, score and their
// arguments (the project, the filters, the query's parts and weights).
func windowKey(sql string, args []any) [sha256.Size]byte {
	h := sha256.New()
	h.Write([]byte(sql))
	for _, a := range args {
		fmt.Fprintf(h, "\x00%T:%v", a, a)
	}
	var key [sha256.Size]byte
	h.Sum(key[:0])
	return key
}

const eventVersion = `COALESCE((SELECT version FROM event_versions WHERE project_id = %s), 0)`

// searchWindowed is searchRanked for one project through its kept window:
// a page of a window whose version still holds is one read by seq; else
// the window is ranked again (the version read with it), kept, and its
// page read. ok is false when the project changed under two reads in a
// row; the caller then ranks without a window.
func (s *Store) searchWindowed(ctx context.Context, projectID int64, w *where, cond, score string, highlight []string,
	f governance.EventFilter) (out []*governance.EventHit, total int, ok bool, err error) {
	key := windowKey(cond+"\x00"+score, w.args)
	win, found := s.windows.get(key)
	for try := 0; try < 2; try++ {
		if !found {
			if win, err = s.rankWindow(ctx, projectID, key, w, cond, score); err != nil {
				return nil, 0, false, err
			}
			if win == nil {
				return nil, 0, true, nil // no match
			}
		}
		from := min(max(f.Offset, 0), len(win.seqs))
		to := len(win.seqs)
		if f.Limit > 0 {
			to = min(from+f.Limit, to)
		}
		if from == to {
			// A page past the window: the caller counts the matches.
			return nil, 0, false, nil
		}
		var fresh bool
		if out, fresh, err = s.windowPage(ctx, projectID, win, win.seqs[from:to], highlight); err != nil {
			return nil, 0, false, err
		}
		if fresh {
			return out, min(len(win.seqs), maxSearchCount+1), true, nil
		}
		s.windows.drop(win)
		found = false
	}
	return nil, 0, false, nil
}

// rankWindow ranks a search's window and reads the project's event
// version in one statement, and keeps the window; nil when nothing
// matches.
func (s *Store) rankWindow(ctx context.Context, projectID int64, key [sha256.Size]byte, w *where, cond, score string) (*searchWindow, error) {
	args := append(append([]any(nil), w.args...), projectID)
	rows, err := s.pool.Query(ctx, `SELECT `+fmt.Sprintf(eventVersion, fmt.Sprintf("$%d", len(args)))+`, e.seq
		FROM (SELECT e.seq, `+score+` AS score FROM events e WHERE `+cond+
		fmt.Sprintf(" ORDER BY e.seq DESC LIMIT %d", searchRankWindow)+`) e
		ORDER BY e.score DESC, e.seq DESC`, args...)
	if err != nil {
		return nil, fmt.Errorf("postgres: rank search: %w", err)
	}
	defer rows.Close()
	win := &searchWindow{key: key, seqs: make([]int64, 0, 64)}
	for rows.Next() {
		var seq int64
		if err := rows.Scan(&win.version, &seq); err != nil {
			return nil, fmt.Errorf("postgres: rank search: %w", err)
		}
		win.seqs = append(win.seqs, seq)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres: rank search: %w", err)
	}
	if len(win.seqs) == 0 {
		return nil, nil
	}
	s.windows.put(win)
	return win, nil
}

// windowPage reads the events of a page of a window by seq, with the
// project's event version in the same statement: fresh is false (and the
// events are not returned) when the version is not the window's, or an
// event is gone.
func (s *Store) windowPage(ctx context.Context, projectID int64, win *searchWindow, page []int64,
	highlight []string) (out []*governance.EventHit, fresh bool, err error) {
	// The project is in the text: the plans pool's (see Store.plans).
	project := strconv.FormatInt(projectID, 10)
	rows, err := s.plans.Query(ctx, `SELECT `+eventColumns+`, `+fmt.Sprintf(eventVersion, project)+`
		FROM events e WHERE `+projectIs("e.project_id", projectID)+` AND e.seq = ANY($1)`, page)
	if err != nil {
		return nil, false, fmt.Errorf("postgres: search page: %w", err)
	}
	defer rows.Close()
	bySeq := make(map[int64]*governance.Event, len(page))
	for rows.Next() {
		var version int64
		e, err := scanEvent(rows, &version)
		if err != nil {
			return nil, false, err
		}
		if version != win.version {
			return nil, false, nil
		}
		bySeq[e.Seq] = e
	}
	if err := rows.Err(); err != nil {
		return nil, false, fmt.Errorf("postgres: search page: %w", err)
	}
	if len(bySeq) != len(page) {
		return nil, false, nil
	}
	out = make([]*governance.EventHit, len(page))
	for i, seq := range page {
		e := bySeq[seq]
		out[i] = &governance.EventHit{Event: e, Fragments: governance.Highlight(e.Text, highlight, 240)}
	}
	return out, true, nil
}
