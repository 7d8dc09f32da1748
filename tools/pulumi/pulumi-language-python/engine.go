package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// engineWriters are writers whose lines reach the CLI as ephemeral messages of the engine's log
// (pip's progress while the virtual environment is made), info and error.
func (h *host) engineWriters(ctx context.Context) (io.Writer, io.Writer, func(), error) {
	if h.engineAddress == "" {
		return io.Discard, io.Discard, func() {}, nil
	}
	conn, err := grpc.NewClient(h.engineAddress, grpc.WithTransportCredentials(insecure.NewCredentials()),
		rpcutil.GrpcChannelOptions())
	if err != nil {
		return nil, nil, nil, fmt.Errorf("the language host could not connect to the engine: %w", err)
	}
	engine := pulumirpc.NewEngineClient(conn)
	stream := int32(os.Getpid())
	writer := func(severity pulumirpc.LogSeverity) io.Writer {
		return &engineLog{ctx: ctx, engine: engine, stream: stream, severity: severity}
	}
	return writer(pulumirpc.LogSeverity_INFO), writer(pulumirpc.LogSeverity_ERROR), func() { _ = conn.Close() }, nil
}

// engineLog writes to the engine's log, as one ephemeral message per write.
type engineLog struct {
	ctx      context.Context
	engine   pulumirpc.EngineClient
	stream   int32
	severity pulumirpc.LogSeverity
}

func (w *engineLog) Write(p []byte) (int, error) {
	_, err := w.engine.Log(w.ctx, &pulumirpc.LogRequest{
		Message:   strings.ToValidUTF8(string(p), "\uFFFD"),
		Ephemeral: true,
		StreamId:  w.stream,
		Severity:  w.severity,
	})
	if err != nil {
		return 0, err
	}
	return len(p), nil
}
