package recall

import (
	"math"
	"sort"
	"strings"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/tokenizer"
)

// Skill selection: which of a project's active skills apply to a task,
// offline. An agent chooses a skill by its name and description alone
// (progressive disclosure: the body is read when the skill is used), so
// selection reads exactly those: BM25 over the terms of each skill's name
// and description, the name's terms counted twice. A skill applies when
// at least two of the task's terms match (or its name matches half of a
// short task's terms) and it scores at least half the best; at most
// MaxSkills.
// Rule scoring is not touched: skills are a section of their own in the
// context package.

// MaxSkills bounds the skills a context package lists.
const MaxSkills = 3

const (
	skillK1 = 1.2
	skillB  = 0.75
	// skillRelative: a skill must score this share of the best one.
	skillRelative = 0.5
	// cjkCharWeight: single CJK characters say little on their own.
	cjkCharWeight = 0.3
)

// SkillIndex ranks a set of skills for tasks. It is immutable once built
// and safe for concurrent use.
type SkillIndex struct {
	skills []*governance.Skill
	terms  []map[string]float64 // weighted term counts of each skill
	names  []map[string]bool    // the terms of each name
	lens   []float64
	avg    float64
	post   map[string][]int32
	idf    map[string]float64
}

// NewSkillIndex indexes skills (the caller passes the active ones, their
// descriptions as agents may read them: SkillTextForAgent).
func NewSkillIndex(skills []*governance.Skill) *SkillIndex {
	ix := &SkillIndex{skills: skills, post: map[string][]int32{}, idf: map[string]float64{}}
	total := 0.0
	for i, s := range skills {
		counts := map[string]float64{}
		name := map[string]bool{}
		skillTerms(strings.ReplaceAll(s.Name, "-", " "), func(t string, w float64) {
			counts[t] += 2 * w
			name[t] = true
		})
		skillTerms(s.Description, func(t string, w float64) { counts[t] += w })
		n := 0.0
		for t, c := range counts {
			n += c
			ix.post[t] = append(ix.post[t], int32(i))
		}
		ix.terms = append(ix.terms, counts)
		ix.names = append(ix.names, name)
		ix.lens = append(ix.lens, n)
		total += n
	}
	if len(skills) > 0 {
		ix.avg = total / float64(len(skills))
	}
	n := float64(len(skills))
	for t, docs := range ix.post {
		df := float64(len(docs))
		ix.idf[t] = math.Log(1 + (n-df+0.5)/(df+0.5))
	}
	return ix
}

// Len is the number of skills indexed.
func (ix *SkillIndex) Len() int { return len(ix.skills) }

// skillTerms calls fn with each term of text and its weight.
func skillTerms(text string, fn func(term string, weight float64)) {
	tokenizer.Tokens(text, func(t string, kind int) {
		w := 1.0
		if kind == tokenizer.CJKChar {
			w = cjkCharWeight
		}
		fn(t, w)
	})
}

type skillHit struct {
	doc     int
	score   float64
	matched []string
	name    bool
}

// Select returns the skills that apply to task, best first, at most limit
// (MaxSkills when limit ≤ 0), each with why: the task's words it matched.
func (ix *SkillIndex) Select(task string, limit int) []governance.SkillMatch {
	if limit <= 0 {
		limit = MaxSkills
	}
	if len(ix.skills) == 0 {
		return nil
	}
	query := map[string]float64{}
	var order []string
	skillTerms(task, func(t string, w float64) {
		if _, ok := query[t]; !ok {
			order = append(order, t)
		}
		query[t] = max(query[t], w)
	})
	original := originalWords(task)
	hits := map[int]*skillHit{}
	for _, t := range order {
		for _, d := range ix.post[t] {
			h := hits[int(d)]
			if h == nil {
				h = &skillHit{doc: int(d)}
				hits[int(d)] = h
			}
			tf := ix.terms[d][t]
			norm := tf * (skillK1 + 1) / (tf + skillK1*(1-skillB+skillB*ix.lens[d]/ix.avg))
			h.score += query[t] * ix.idf[t] * norm
			if query[t] == 1 {
				h.matched = append(h.matched, t)
			}
			if ix.names[d][t] {
				h.name = true
			}
		}
	}
	words := 0
	for _, w := range query {
		if w == 1 {
			words++
		}
	}
	var list []*skillHit
	best := 0.0
	for _, h := range hits {
		// Two of the task's terms, or its name covering half the task.
		if len(h.matched) < 2 && !(h.name && 2*len(h.matched) >= words) {
			continue
		}
		list = append(list, h)
		best = max(best, h.score)
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].score != list[j].score {
			return list[i].score > list[j].score
		}
		return ix.skills[list[i].doc].Name < ix.skills[list[j].doc].Name
	})
	var out []governance.SkillMatch
	for _, h := range list {
		if h.score < skillRelative*best || len(out) == limit {
			break
		}
		s := ix.skills[h.doc]
		shown := make([]string, 0, len(h.matched))
		for _, t := range h.matched {
			if w := original[t]; w != "" {
				shown = append(shown, w)
			} else {
				shown = append(shown, t)
			}
		}
		why := "matches " + strings.Join(shown, ", ")
		if h.name {
			why += " (in its name)"
		}
		out = append(out, governance.SkillMatch{Name: s.Name, Description: s.Description, Why: why,
			Score: math.Round(h.score*1000) / 1000})
	}
	return out
}

// originalWords maps each stemmed term of text to the word it came from.
func originalWords(text string) map[string]string {
	out := map[string]string{}
	for _, w := range tokenizer.Words(text) {
		if st := tokenizer.Stem(w); out[st] == "" {
			out[st] = w
		}
	}
	return out
}

// SkillTextForAgent is a skill's text as an agent reads it: credentials
// masked and fence tags defused (the skill was reviewed before it became
// active; its findings were seen by a reviewer).
func SkillTextForAgent(text string) string {
	return governance.SkillTextForAgent(text)
}

// SkillsBlock renders the skills of a context package for a prompt: name,
// description and why, one a line; the body is fetched on demand
// (get_skill, GET /api/v1/skills/{name}).
func SkillsBlock(skills []governance.SkillMatch) string {
	if len(skills) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("<skills>\nSkills that may apply; read one's instructions with get_skill before you use it.\n")
	defuse := strings.NewReplacer("<skills>", "‹skills›", "</skills>", "‹/skills›")
	for _, s := range skills {
		b.WriteString("- " + s.Name + ": " + defuse.Replace(oneLine(s.Description)) + " (" + s.Why + ")\n")
	}
	b.WriteString("</skills>")
	return b.String()
}
