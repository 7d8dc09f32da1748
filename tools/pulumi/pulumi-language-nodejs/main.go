// Command pulumi-language-nodejs is a minimal Node.js language host for the Pulumi engine.
//
// The upstream host lives in a Go module that the module proxy does not serve, so this project
// builds its own from the public gRPC contract in github.com/pulumi/pulumi/sdk/v3. It does what a
// `pulumi up` of a Node.js program needs: it answers the engine's handshake and plugin queries and
// runs the program through @pulumi/pulumi's own `cmd/run` entry point, exactly as the upstream host
// does, with the same flags and environment variables. It exits, with the program it started,
// once the engine is gone (internal/supervise).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"pulumi-directmail/tools/pulumi/internal/supervise"

	"github.com/pulumi/pulumi/sdk/v3/go/common/version"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/protobuf/types/known/emptypb"
)

// exitAfterReportedError is the exit code @pulumi/pulumi uses after it has already reported the
// error to the engine; the engine then must not print a second, less useful message.
const exitAfterReportedError = 32

func main() {
	// The engine may pass flags that older hosts understood; accept and ignore the ones we do not use.
	flag.String("tracing", "", "Zipkin-compatible tracing endpoint (ignored)")
	flag.String("root", "", "project root (ignored; the engine sends it with each request)")
	flag.Bool("typescript", true, "ignored; read from the project's runtime options")
	flag.String("tsconfig", "", "ignored; read from the project's runtime options")
	flag.String("nodeargs", "", "ignored; read from the project's runtime options")
	flag.String("packagemanager", "", "ignored")
	flag.Parse()

	h := &host{engineAddress: supervise.EngineAddress(flag.Args())}
	if h.engineAddress != "" {
		h.children.WatchEngine(h.engineAddress)
	}
	supervise.Serve(h)
}

type host struct {
	pulumirpc.UnimplementedLanguageRuntimeServer
	engineAddress string
	children      supervise.Children // the programs running now
}

func (h *host) Handshake(
	_ context.Context, req *pulumirpc.LanguageHandshakeRequest,
) (*pulumirpc.LanguageHandshakeResponse, error) {
	if req.GetEngineAddress() != "" {
		h.engineAddress = req.GetEngineAddress()
		h.children.WatchEngine(h.engineAddress)
	}
	return &pulumirpc.LanguageHandshakeResponse{}, nil
}

func (h *host) GetPluginInfo(context.Context, *emptypb.Empty) (*pulumirpc.PluginInfo, error) {
	return &pulumirpc.PluginInfo{Version: version.Version}, nil
}

// GetRequiredPlugins and GetRequiredPackages report no plugins: the dynamic-provider plugin
// (pulumi-nodejs) is bundled beside the CLI, and nothing may be downloaded here.
func (h *host) GetRequiredPlugins(
	context.Context, *pulumirpc.GetRequiredPluginsRequest,
) (*pulumirpc.GetRequiredPluginsResponse, error) {
	return &pulumirpc.GetRequiredPluginsResponse{}, nil
}

func (h *host) GetRequiredPackages(
	context.Context, *pulumirpc.GetRequiredPackagesRequest,
) (*pulumirpc.GetRequiredPackagesResponse, error) {
	return &pulumirpc.GetRequiredPackagesResponse{}, nil
}

func (h *host) GetProgramDependencies(
	context.Context, *pulumirpc.GetProgramDependenciesRequest,
) (*pulumirpc.GetProgramDependenciesResponse, error) {
	return &pulumirpc.GetProgramDependenciesResponse{}, nil
}

// runtimeOptions are the `runtime.options` of Pulumi.yaml that change how the program starts.
type runtimeOptions struct {
	typescript bool
	tsconfig   string
	nodeargs   []string
}

func readRuntimeOptions(info *pulumirpc.ProgramInfo) runtimeOptions {
	opts := runtimeOptions{typescript: true}
	fields := info.GetOptions().GetFields()
	if v, ok := fields["typescript"]; ok {
		opts.typescript = v.GetBoolValue()
	}
	if v, ok := fields["tsconfig"]; ok {
		opts.tsconfig = v.GetStringValue()
	}
	if v, ok := fields["nodeargs"]; ok {
		opts.nodeargs = strings.Fields(v.GetStringValue())
	}
	return opts
}

// findRunScript finds @pulumi/pulumi's `cmd/run` from the program directory upwards, the way
// Node itself resolves the package for the program.
func findRunScript(start string) (string, error) {
	for dir := start; ; dir = filepath.Dir(dir) {
		candidate := filepath.Join(dir, "node_modules", "@pulumi", "pulumi", "cmd", "run")
		if _, err := os.Stat(filepath.Join(candidate, "index.js")); err == nil {
			return candidate, nil
		}
		if parent := filepath.Dir(dir); parent == dir {
			return "", fmt.Errorf("@pulumi/pulumi is not installed for the program in %s: run `npm install` there", start)
		}
	}
}

func (h *host) Run(ctx context.Context, req *pulumirpc.RunRequest) (*pulumirpc.RunResponse, error) {
	info := req.GetInfo()
	if info == nil {
		return nil, errors.New("the engine sent no program information; this host needs Pulumi 3.120 or later")
	}
	runPath, err := findRunScript(info.GetProgramDirectory())
	if err != nil {
		return &pulumirpc.RunResponse{Error: err.Error()}, nil
	}
	opts := readRuntimeOptions(info)

	config, err := json.Marshal(req.GetConfig())
	if err != nil {
		return nil, fmt.Errorf("serializing the stack configuration: %w", err)
	}
	secretKeys, err := json.Marshal(req.GetConfigSecretKeys())
	if err != nil {
		return nil, fmt.Errorf("serializing the secret configuration keys: %w", err)
	}

	args := append([]string{}, opts.nodeargs...)
	args = append(args, runPath)
	flagIfSet := func(name, value string) {
		if value != "" {
			args = append(args, "--"+name, value)
		}
	}
	flagIfSet("monitor", req.GetMonitorAddress())
	flagIfSet("engine", h.engineAddress)
	flagIfSet("organization", req.GetOrganization())
	flagIfSet("project", req.GetProject())
	flagIfSet("root-directory", info.GetRootDirectory())
	flagIfSet("stack", req.GetStack())
	flagIfSet("pwd", info.GetProgramDirectory())
	if req.GetDryRun() {
		args = append(args, "--dry-run")
	}
	flagIfSet("parallel", strconv.Itoa(int(req.GetParallel())))
	entry := info.GetEntryPoint()
	if entry == "" {
		entry = "."
	}
	args = append(args, entry)
	args = append(args, req.GetArgs()...)

	env := append(os.Environ(),
		"PULUMI_CONFIG="+string(config),
		"PULUMI_CONFIG_SECRET_KEYS="+string(secretKeys),
		"PULUMI_NODEJS_TYPESCRIPT="+strconv.FormatBool(opts.typescript),
	)
	if opts.tsconfig != "" {
		env = append(env, "PULUMI_NODEJS_TSCONFIG_PATH="+opts.tsconfig)
	}

	cmd := exec.CommandContext(ctx, "node", args...)
	cmd.Dir = info.GetProgramDirectory()
	cmd.Stdout = os.Stdout
	cmd.Stderr = os.Stderr
	cmd.Env = env
	err = cmd.Start()
	if err == nil {
		h.children.Track(cmd.Process, true)
		err = cmd.Wait()
		h.children.Track(cmd.Process, false)
	}
	if err != nil {
		var exitErr *exec.ExitError
		if errors.As(err, &exitErr) {
			if exitErr.ExitCode() == exitAfterReportedError {
				return &pulumirpc.RunResponse{Bail: true}, nil
			}
			return &pulumirpc.RunResponse{
				Error: fmt.Sprintf("Program exited with non-zero exit code: %d", exitErr.ExitCode()),
			}, nil
		}
		return &pulumirpc.RunResponse{Error: fmt.Sprintf("could not start node: %v", err)}, nil
	}
	return &pulumirpc.RunResponse{}, nil
}
