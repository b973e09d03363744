package web

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mnemo-console/mnemo/evals"
	"github.com/mnemo-console/mnemo/locale"
	"github.com/mnemo-console/mnemo/web/templates"
)

// trendPoints is how many finished runs the trend chart shows.
const trendPoints = 30

// trendChart draws the finished runs (newest first in runs) as an SVG line
// chart: pass rate, recall precision and recall, and uplift.
func trendChart(loc *locale.Localizer, runs []*evals.RunRow) templates.EvalChart {
	c := templates.EvalChart{Width: 640, Height: 240, Left: 44, Top: 12, Right: 628, Bottom: 212}
	var done []*evals.RunRow
	var metrics []*evals.Metrics
	for _, r := range runs {
		if r.Status != evals.RunDone {
			continue
		}
		if m := evals.ParseRunSummary(r.Summary).Metrics; m != nil {
			done = append(done, r)
			metrics = append(metrics, m)
		}
		if len(done) == trendPoints {
			break
		}
	}
	slices.Reverse(done)
	slices.Reverse(metrics)
	c.Runs = len(done)
	if c.Runs == 0 {
		return c
	}
	lo := 0.0
	for _, m := range metrics {
		if m.Uplift != nil && *m.Uplift < 0 {
			lo = -1
		}
	}
	x := func(i int) float64 {
		if len(done) == 1 {
			return float64(c.Left+c.Right) / 2
		}
		return float64(c.Left) + float64(c.Right-c.Left)*float64(i)/float64(len(done)-1)
	}
	y := func(v float64) float64 {
		return float64(c.Top) + float64(c.Bottom-c.Top)*(1-(v-lo)/(1-lo))
	}
	for _, t := range []float64{-1, -0.5, 0, 0.25, 0.5, 0.75, 1} {
		if t >= lo {
			c.YTicks = append(c.YTicks, templates.EvalTick{Pos: coord(y(t)), Label: fmt.Sprintf("%.2g", t)})
		}
	}
	step := max(1, (len(done)+9)/10)
	for i, r := range done {
		if i%step == 0 || i == len(done)-1 {
			c.XTicks = append(c.XTicks, templates.EvalTick{Pos: coord(x(i)), Label: fmt.Sprintf("#%d", r.ID)})
		}
	}
	for _, s := range []struct {
		key, name, color string
		dashed           bool
		get              func(*evals.Metrics) *float64
	}{
		{"pass-rate", loc.T("eval.metric.pass_rate"), "#2e7d32", false, func(m *evals.Metrics) *float64 { return m.PassRate }},
		{"precision", loc.T("eval.metric.precision"), "#1d4ed8", false, func(m *evals.Metrics) *float64 { return m.Precision }},
		{"recall", loc.T("eval.metric.recall"), "#7c3aed", true, func(m *evals.Metrics) *float64 { return m.Recall }},
		{"uplift", loc.T("eval.metric.uplift"), "#b45309", false, func(m *evals.Metrics) *float64 { return m.Uplift }},
	} {
		series := templates.EvalSeries{Key: s.key, Name: s.name, Color: s.color, Dashed: s.dashed, Width: "2"}
		if s.key == "pass-rate" {
			series.Width = "5" // drawn first and wider: visible under lines that coincide
		}
		var pts []string
		for i, m := range metrics {
			v := s.get(m)
			if v == nil {
				continue
			}
			px, py := coord(x(i)), coord(y(*v))
			pts = append(pts, px+","+py)
			series.Dots = append(series.Dots, templates.EvalDot{X: px, Y: py, URL: templates.EvalRunURL(done[i].ID),
				Label: loc.T("eval.chart_dot", "Series", s.name, "ID", done[i].ID, "Value", fmt.Sprintf("%.2f", *v))})
		}
		if len(pts) == 0 {
			continue
		}
		series.Points = strings.Join(pts, " ")
		c.Series = append(c.Series, series)
	}
	return c
}

func coord(v float64) string { return fmt.Sprintf("%.1f", v) }
