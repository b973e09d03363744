package ops

import (
	"context"
	"errors"
	"net/http"
	"os"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.26.0"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// TracerName names the console's spans' instrumentation scope.
const TracerName = "github.com/mnemo-console/mnemo"

// Tracing is the console's tracer provider: the OTLP/HTTP exporter when
// OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is
// set — the exporter reads the standard OTEL_* variables itself —, else a
// provider that records nothing.
type Tracing struct {
	Provider trace.TracerProvider
	shutdown func(context.Context) error
}

// NewTracing builds the provider from the environment (getenv).
func NewTracing(ctx context.Context, getenv func(string) string) (*Tracing, error) {
	if getenv("OTEL_EXPORTER_OTLP_ENDPOINT") == "" && getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") == "" {
		return &Tracing{Provider: noop.NewTracerProvider(), shutdown: func(context.Context) error { return nil }}, nil
	}
	exp, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, errors.Join(errors.New("ops: OTLP trace exporter"), err)
	}
	name := getenv("OTEL_SERVICE_NAME")
	if name == "" {
		name = "mnemo-console"
	}
	host, _ := os.Hostname()
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(resource.NewSchemaless(
		semconv.ServiceName(name), semconv.HostName(host))))
	return &Tracing{Provider: tp, shutdown: tp.Shutdown}, nil
}

// NewTracingWith wraps a provider (tests: an SDK provider with an
// in-memory span recorder).
func NewTracingWith(tp trace.TracerProvider) *Tracing {
	return &Tracing{Provider: tp, shutdown: func(context.Context) error { return nil }}
}

// Tracer is the console's tracer.
func (t *Tracing) Tracer() trace.Tracer { return t.Provider.Tracer(TracerName) }

// Shutdown flushes and stops the exporter.
func (t *Tracing) Shutdown(ctx context.Context) error { return t.shutdown(ctx) }

// propagator reads the caller's W3C trace context (traceparent), so an
// agent that traces its own call sees the console's recall inside it.
var propagator = propagation.TraceContext{}

// TraceHTTP starts a server span around each request, as a child of the
// caller's trace context when it sent one. The span is named after the
// method until the router names the route (NameRequestSpan).
func (t *Tracing) TraceHTTP(next http.Handler) http.Handler {
	tracer := t.Tracer()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := propagator.Extract(r.Context(), propagation.HeaderCarrier(r.Header))
		ctx, span := tracer.Start(ctx, "HTTP "+Method(r.Method), trace.WithSpanKind(trace.SpanKindServer),
			trace.WithAttributes(semconv.HTTPRequestMethodKey.String(Method(r.Method))))
		defer span.End()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// NameRequestSpan names the request's span after its route template and
// records the status, once the router has matched it.
func NameRequestSpan(ctx context.Context, method, route string, status int) {
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		return
	}
	if route != "" {
		span.SetName(Method(method) + " " + route)
		span.SetAttributes(semconv.HTTPRoute(route))
	}
	span.SetAttributes(semconv.HTTPResponseStatusCode(status))
}
