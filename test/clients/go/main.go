// A tiny shop traced by dd-trace-go v2, run against test/clients/capture-agent.ts so that the
// tracer's exact bytes can be kept as fixtures (see README.md beside this file).
//
// It serves GET /orders/{id}, POST /orders and GET /checkout/fail through the net/http contrib,
// calls them with a traced client, queries sqlite through the database/sql contrib and logs,
// inside those spans, at DEBUG/INFO/WARN/ERROR through the slog contrib in both slog's JSON and
// text layouts (one file each).
package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	sqltrace "github.com/DataDog/dd-trace-go/contrib/database/sql/v2"
	slogtrace "github.com/DataDog/dd-trace-go/contrib/log/slog/v2"
	httptrace "github.com/DataDog/dd-trace-go/contrib/net/http/v2"
	"github.com/DataDog/dd-trace-go/v2/ddtrace/tracer"
	"modernc.org/sqlite"
)

// shop holds what the handlers share: the traced database and one logger per log file.
type shop struct {
	db      *sql.DB
	loggers []*slog.Logger
}

// logAll writes the same record to every log file, so both layouts carry the same lines.
func (s *shop) logAll(ctx context.Context, level slog.Level, msg string, attrs ...any) {
	for _, l := range s.loggers {
		l.Log(ctx, level, msg, attrs...)
	}
}

func openDB() (*sql.DB, error) {
	sqltrace.Register("sqlite", &sqlite.Driver{})
	db, err := sqltrace.Open("sqlite", "file:shop?mode=memory&cache=shared")
	if err != nil {
		return nil, err
	}
	_, err = db.Exec(`CREATE TABLE orders (id INTEGER PRIMARY KEY, item TEXT NOT NULL, qty INTEGER NOT NULL)`)
	return db, err
}

func (s *shop) getOrder(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	id := r.PathValue("id")
	s.logAll(ctx, slog.LevelDebug, "looking up order", "order_id", id)
	var item string
	var qty int
	err := s.db.QueryRowContext(ctx, `SELECT item, qty FROM orders WHERE id = ?`, id).Scan(&item, &qty)
	if errors.Is(err, sql.ErrNoRows) {
		s.logAll(ctx, slog.LevelWarn, "order not found", "order_id", id)
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	if err != nil {
		s.logAll(ctx, slog.LevelError, "order lookup failed", "order_id", id, "err", err)
		http.Error(w, "lookup failed", http.StatusInternalServerError)
		return
	}
	s.logAll(ctx, slog.LevelInfo, "order found", "order_id", id, "item", item)
	fmt.Fprintf(w, `{"id":%s,"item":%q,"qty":%d}`, id, item, qty)
}

func (s *shop) createOrder(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	res, err := s.db.ExecContext(ctx, `INSERT INTO orders (item, qty) VALUES (?, ?)`, "widget", 3)
	if err != nil {
		s.logAll(ctx, slog.LevelError, "insert failed", "err", err)
		http.Error(w, "insert failed", http.StatusInternalServerError)
		return
	}
	id, _ := res.LastInsertId()
	s.logAll(ctx, slog.LevelInfo, "order created", "order_id", id, "item", "widget")
	w.WriteHeader(http.StatusCreated)
	fmt.Fprintf(w, `{"id":%d}`, id)
}

// failCheckout answers 500 after a child span that fails with an error (the tracer keeps its
// stack), and logs an ERROR line whose "status" field is the upstream's HTTP status, not a level.
func (s *shop) failCheckout(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	span, spanCtx := tracer.StartSpanFromContext(ctx, "payment.charge", tracer.ResourceName("charge card"))
	err := chargeCard(spanCtx)
	span.Finish(tracer.WithError(err))
	s.logAll(ctx, slog.LevelWarn, "payment provider unavailable, giving up", "attempts", 1)
	s.logAll(ctx, slog.LevelError, "checkout failed", "status", 503, "err", err)
	http.Error(w, "checkout failed", http.StatusInternalServerError)
}

func chargeCard(context.Context) error {
	return errors.New("payment provider answered 503 Service Unavailable")
}

// newLoggers opens the JSON and the text log file, both through the slog contrib, which adds
// dd.trace_id and dd.span_id to every record logged with a traced context.
func newLoggers(dir string) ([]*slog.Logger, func(), error) {
	opts := &slog.HandlerOptions{Level: slog.LevelDebug}
	jsonFile, err := os.Create(filepath.Join(dir, "app.json.log"))
	if err != nil {
		return nil, nil, err
	}
	textFile, err := os.Create(filepath.Join(dir, "app.text.log"))
	if err != nil {
		return nil, nil, err
	}
	loggers := []*slog.Logger{
		slog.New(slogtrace.WrapHandler(slog.NewJSONHandler(jsonFile, opts))),
		slog.New(slogtrace.WrapHandler(slog.NewTextHandler(textFile, opts))),
	}
	return loggers, func() { jsonFile.Close(); textFile.Close() }, nil
}

// drive calls each route once through a traced client, so every server span has a client parent.
func drive(base string) error {
	client := httptrace.WrapClient(&http.Client{})
	calls := []struct{ method, path string }{
		{http.MethodPost, "/orders"},
		{http.MethodGet, "/orders/1"},
		{http.MethodGet, "/orders/42"},
		{http.MethodGet, "/checkout/fail"},
	}
	for _, c := range calls {
		req, err := http.NewRequest(c.method, base+c.path, strings.NewReader(`{"item":"widget","qty":3}`))
		if err != nil {
			return err
		}
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		log.Printf("%s %s -> %d", c.method, c.path, resp.StatusCode)
	}
	return nil
}

func run(logDir string) error {
	if err := tracer.Start(); err != nil {
		return err
	}
	defer tracer.Stop() // flushes every finished trace to the agent before exit
	db, err := openDB()
	if err != nil {
		return err
	}
	defer db.Close()
	loggers, closeLogs, err := newLoggers(logDir)
	if err != nil {
		return err
	}
	defer closeLogs()
	s := &shop{db: db, loggers: loggers}
	mux := httptrace.NewServeMux()
	mux.HandleFunc("GET /orders/{id}", s.getOrder)
	mux.HandleFunc("POST /orders", s.createOrder)
	mux.HandleFunc("GET /checkout/fail", s.failCheckout)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	go http.Serve(ln, mux) //nolint:errcheck // ends with the process
	return drive("http://" + ln.Addr().String())
}

func main() {
	logDir := "."
	if len(os.Args) > 1 {
		logDir = os.Args[1]
	}
	if err := run(logDir); err != nil {
		log.Fatal(err)
	}
}
