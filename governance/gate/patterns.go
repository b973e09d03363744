package gate

import (
	"embed"
	"fmt"
	"regexp"
	"strings"
)

// The gate's patterns, cues and word lists are data: patterns/*.txt, one
// phrasing a line (docs/gate.md, "Patterns as data"). A file is a list of
// blocks; a block starts with a header line
//
//	== KIND NAME... [(?flags)] [option[=value]...]
//
// and each following line, up to the next header, is one alternative of the
// block's expression (blank lines and lines starting with # are skipped). The
// expression is the flags followed by the lines joined with "|", after every
// {{name}} is replaced by the fragment of that name (== define name).

//go:embed patterns/*.txt
var patternFiles embed.FS

// patternBlock is one block of a pattern file.
type patternBlock struct {
	kind  string
	names []string
	flags string
	opts  map[string]string
	lines []string
	where string // file:line of the header
}

// expr returns the block's expression with every fragment expanded.
func (b *patternBlock) expr(defs map[string]string) string {
	lines := make([]string, len(b.lines))
	for i, l := range b.lines {
		lines[i] = expand(l, defs, b.where, 0)
	}
	return b.flags + strings.Join(lines, "|")
}

var fragmentRef = regexp.MustCompile(`\{\{(\w+)\}\}`)

func expand(s string, defs map[string]string, where string, depth int) string {
	if depth > 8 {
		panic(fmt.Sprintf("gate patterns %s: fragments nest too deep", where))
	}
	return fragmentRef.ReplaceAllStringFunc(s, func(ref string) string {
		name := ref[2 : len(ref)-2]
		v, ok := defs[name]
		if !ok {
			panic(fmt.Sprintf("gate patterns %s: no fragment %q", where, name))
		}
		return expand(v, defs, where, depth+1)
	})
}

// patternSet is every block of the pattern files, by kind, in file order.
type patternSet struct {
	defs   map[string]string
	blocks []*patternBlock
}

// patternFileOrder is the order the files are read in: rules match, and
// their findings are reported, in this order within a risk class.
var patternFileOrder = []string{"defines.txt", "words.txt", "block.txt", "credentials.txt", "authority.txt", "risk.txt", "lowrisk.txt", "placement.txt"}

// pinyin.txt is read by reading.go; its lines are pairs, not expressions.

func loadPatterns() *patternSet {
	set := &patternSet{defs: map[string]string{}}
	for _, name := range patternFileOrder {
		data, err := patternFiles.ReadFile("patterns/" + name)
		if err != nil {
			panic(err)
		}
		blocks, err := parsePatternFile(name, string(data))
		if err != nil {
			panic(err)
		}
		for _, b := range blocks {
			if b.kind == "define" {
				if len(b.lines) == 1 {
					set.defs[b.names[0]] = b.lines[0]
				} else {
					set.defs[b.names[0]] = "(?:" + strings.Join(b.lines, "|") + ")"
				}
				continue
			}
			set.blocks = append(set.blocks, b)
		}
	}
	return set
}

// parsePatternFile reads the blocks of one file.
func parsePatternFile(name, data string) ([]*patternBlock, error) {
	var blocks []*patternBlock
	var cur *patternBlock
	for n, line := range strings.Split(data, "\n") {
		line = strings.TrimRight(line, "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		where := fmt.Sprintf("%s:%d", name, n+1)
		if head, ok := strings.CutPrefix(line, "== "); ok {
			f := strings.Fields(head)
			if len(f) < 2 {
				return nil, fmt.Errorf("gate patterns %s: a header needs a kind and a name", where)
			}
			cur = &patternBlock{kind: f[0], opts: map[string]string{}, where: where}
			for _, w := range f[1:] {
				switch {
				case strings.HasPrefix(w, "(?"):
					cur.flags = w
				case strings.Contains(w, "="):
					k, v, _ := strings.Cut(w, "=")
					cur.opts[k] = v
				case len(cur.names) == 0 || cur.kind == "rule" && len(cur.names) == 1:
					cur.names = append(cur.names, w)
				default:
					cur.opts[w] = ""
				}
			}
			blocks = append(blocks, cur)
			continue
		}
		if cur == nil {
			return nil, fmt.Errorf("gate patterns %s: a line before any header", where)
		}
		if strings.TrimSpace(line) != line {
			return nil, fmt.Errorf("gate patterns %s: a line starts or ends with white space", where)
		}
		cur.lines = append(cur.lines, line)
	}
	for _, b := range blocks {
		if len(b.lines) == 0 {
			return nil, fmt.Errorf("gate patterns %s: %s %s has no lines", b.where, b.kind, b.names[0])
		}
	}
	return blocks, nil
}

// named returns the one block of kind and name.
func (s *patternSet) named(kind, name string) *patternBlock {
	for _, b := range s.blocks {
		if b.kind == kind && b.names[0] == name {
			return b
		}
	}
	panic(fmt.Sprintf("gate patterns: no %s %q", kind, name))
}

// exprOf returns the expression of the named word list (== expr NAME).
func (s *patternSet) exprOf(name string) string { return s.named("expr", name).expr(s.defs) }

// of returns the blocks of one kind, in file order.
func (s *patternSet) of(kind string) []*patternBlock {
	var out []*patternBlock
	for _, b := range s.blocks {
		if b.kind == kind {
			out = append(out, b)
		}
	}
	return out
}

var patterns = loadPatterns()

// acceptFuncs are the checks a rule's accept= option names.
var acceptFuncs = map[string]func(string, []int) bool{
	"carriesInstructions": carriesInstructions,
	"notNegated":          notNegated,
	"plausibleSecret":     plausibleSecret,
	"notPlaceholder":      notPlaceholder,
	"notAfterAt":          notAfterAt,
	"notIdiom":            notIdiom,
	"phoneShaped":         phoneShaped,
	"accountShaped":       accountShaped,
	"highEntropy":         highEntropy,
	"notUserSubject":      notUserSubject,
	"agentDoes":           agentDoes,
	"namedParty":          namedParty,
	"agentCommits":        agentCommits,
	"bookingCommits":      bookingCommits,
	"notToUser":           notToUser,
	"readerNotUser":       readerNotUser,
}

// runWindows are the runs a rule's runs= option names.
var runWindows = map[string]*runWindow{"host": hostRun, "address": addressRun, "number": numberRun, "ip": ipRun}

// loadRules builds the gate's rules from the pattern files: == rule
// CATEGORY PATTERN and == secret PATTERN blocks.
func loadRules(set *patternSet) []gateRule {
	var rules []gateRule
	for _, b := range set.blocks {
		var r gateRule
		switch b.kind {
		case "rule":
			if len(b.names) != 2 {
				panic(fmt.Sprintf("gate patterns %s: == rule CATEGORY PATTERN", b.where))
			}
			r = rule(b.names[0], b.names[1], b.expr(set.defs))
		case "secret":
			r = secretRule(b.names[0], b.expr(set.defs))
		default:
			continue
		}
		for k, v := range b.opts {
			switch k {
			case "accept":
				f, ok := acceptFuncs[v]
				if !ok {
					panic(fmt.Sprintf("gate patterns %s: no accept function %q", b.where, v))
				}
				r.accept = f
			case "runs":
				w, ok := runWindows[v]
				if !ok {
					panic(fmt.Sprintf("gate patterns %s: no runs %q", b.where, v))
				}
				r = r.inRuns(w)
			case "payload":
				r.payload = true
			default:
				panic(fmt.Sprintf("gate patterns %s: unknown option %q", b.where, k))
			}
		}
		r.feature = strings.HasPrefix(b.where, "risk.txt:")
		rules = append(rules, r)
	}
	return rules
}
