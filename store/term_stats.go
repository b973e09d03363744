package store

import (
	"context"
	"fmt"
	"sync"

	"github.com/mnemo-console/mnemo/governance"
)

// termStats keeps, per recall scope (a project's project-wide events and
// one subject's), what recall's relevance model needs of the scope's
// events besides the ones it is offered: their number and the document
// frequency of each term recall has asked about (counted in the
// project-scoped index). The scope's own, so that no other subject's
// words weigh in a member's ranking. An entry is valid while the
// project's event_index_versions row (migration 0032) is
// unchanged: every change of the project's indexed terms bumps it in its
// own transaction (ingest, a completed follow-mode message, a redaction,
// a deletion), and every read checks it first, so counts that include a
// forgotten event are never used once the forget has committed. Each
// commit of this process also drops the entries whose project changed
// (sweep), so a forgotten word does not stay in memory as a key until the
// project's next recall.
type termStats struct {
	mu     sync.Mutex
	scopes map[termScope]*scopeTermStats
}

type termScope struct {
	project int64
	subject string
}

type scopeTermStats struct {
	version int64
	docs    int
	df      map[string]int
}

// maxCachedTerms bounds the terms kept per scope; past it the scope's
// terms are dropped and read again as asked.
const maxCachedTerms = 20000

// eventTermStats returns the scope's event count and the document
// frequencies of terms in its events (from the cache when the project's
// index has not changed since they were read).
func (s *Store) eventTermStats(ctx context.Context, projectID int64, subject string, terms []string) (*governance.TermStats, error) {
	key := termScope{projectID, subject}
	// The version is read before the counts: counts read after a change
	// are at worst stored under the older version, and never used again.
	var version int64
	if err := s.read.QueryRowContext(ctx, `SELECT COALESCE((SELECT version FROM event_index_versions WHERE project_id = ?), 0)`,
		projectID).Scan(&version); err != nil {
		return nil, fmt.Errorf("store: event index version: %w", err)
	}
	out := &governance.TermStats{Docs: -1, DF: make(map[string]int, len(terms))}
	var missing []string
	c := &s.termStats
	c.mu.Lock()
	if p := c.scopes[key]; p != nil && p.version == version {
		out.Docs = p.docs
		for _, t := range terms {
			if n, ok := p.df[t]; ok {
				out.DF[t] = n
			} else {
				missing = append(missing, t)
			}
		}
	} else {
		missing = terms
	}
	c.mu.Unlock()
	if out.Docs < 0 {
		// Redacted events count too: the index alone answers (events_subject).
		if err := s.read.QueryRowContext(ctx, `SELECT COUNT(*) FROM events WHERE project_id = ? AND subject_id IN ('', ?)`,
			projectID, subject).Scan(&out.Docs); err != nil {
			return nil, fmt.Errorf("store: event count: %w", err)
		}
	}
	read := make(map[string]int, len(missing))
	for _, t := range missing {
		var n int
		err := s.read.QueryRowContext(ctx, `SELECT COUNT(*) FROM events_words WHERE events_words MATCH ?`,
			anyTermMatch(projectID, recallSubjects(subject), []string{t})).Scan(&n)
		if err != nil {
			return nil, fmt.Errorf("store: term frequency: %w", err)
		}
		out.DF[t], read[t] = n, n
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.scopes[key]
	if p == nil || p.version != version || len(p.df)+len(read) > maxCachedTerms {
		p = &scopeTermStats{version: version, docs: out.Docs, df: map[string]int{}}
		if c.scopes == nil {
			c.scopes = map[termScope]*scopeTermStats{}
		}
		c.scopes[key] = p
	}
	for t, n := range read {
		p.df[t] = n
	}
	return out, nil
}

// sweep drops the entries whose project's index changed; the store runs it
// after each commit of this process while anything is cached.
func (s *Store) sweepTermStats(ctx context.Context) {
	c := &s.termStats
	c.mu.Lock()
	empty := len(c.scopes) == 0
	c.mu.Unlock()
	if empty {
		return
	}
	versions := map[int64]int64{}
	err := queryAll(ctx, s.read, `SELECT project_id, version FROM event_index_versions`, nil, func(r scanner) error {
		var id, v int64
		err := r.Scan(&id, &v)
		versions[id] = v
		return err
	})
	c.mu.Lock()
	defer c.mu.Unlock()
	for key, p := range c.scopes {
		// Unreadable versions drop everything: the reads check them anyway.
		if err != nil || versions[key.project] != p.version {
			delete(c.scopes, key)
		}
	}
}
