// Command pulumi-language-python is a minimal Python language host for the Pulumi engine.
//
// The upstream host lives in a Go module that the module proxy does not serve, so this project
// builds its own from the public gRPC contract in github.com/pulumi/pulumi/sdk/v3, with the same
// Python toolchain code the upstream host uses (sdk/v3/python/toolchain: the virtual environment,
// pip). It runs a program as the upstream host does, through the executor script that ships with
// the SDK (`pulumi-language-python-exec`, installed beside this binary), with the same flags and
// environment. It exits, with the program it started, once the engine is gone (internal/supervise).
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
	"time"

	"pulumi-directmail/tools/pulumi/internal/supervise"

	"github.com/pulumi/pulumi/sdk/v3/go/common/util/cmdutil"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
	"github.com/pulumi/pulumi/sdk/v3/go/common/version"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"github.com/pulumi/pulumi/sdk/v3/python/toolchain"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"
)

const (
	// executorName is the SDK's runtime entry, which configures pulumi.runtime and runs the program.
	executorName = "pulumi-language-python-exec"
	// exitAfterReportedError is the exit code of the executor after it has reported the error (an
	// unhandled exception with its traceback) to the engine, which then prints nothing more.
	exitAfterReportedError = 32
	// cancelGrace is how long a cancelled program has, after an interrupt, to stop by itself.
	cancelGrace = 5 * time.Second
)

func main() {
	// The engine may pass flags that older hosts understood; accept and ignore the ones we do not use.
	flag.String("tracing", "", "Zipkin-compatible tracing endpoint (ignored)")
	flag.String("root", "", "project root (ignored; the engine sends it with each request)")
	flag.String("virtualenv", "", "ignored; read from the project's runtime options")
	flag.String("toolchain", "", "ignored; read from the project's runtime options")
	flag.String("typechecker", "", "ignored; read from the project's runtime options")
	executor := flag.String("use-executor", "", "the executor script (default: "+executorName+" beside this binary)")
	flag.Parse()

	if *executor == "" {
		self, err := os.Executable()
		if err != nil {
			cmdutil.Exit(fmt.Errorf("could not find this host's own path: %w", err))
		}
		*executor = filepath.Join(filepath.Dir(self), executorName)
	}
	if _, err := os.Stat(*executor); err != nil {
		cmdutil.Exit(fmt.Errorf("the Python executor is missing (%w); rebuild the host with scripts/toolchain.sh", err))
	}

	cancelled, cancel := context.WithCancel(context.Background())
	h := &host{executor: *executor, engineAddress: supervise.EngineAddress(flag.Args()), cancelled: cancelled, cancel: cancel}
	if h.engineAddress != "" {
		h.children.WatchEngine(h.engineAddress)
	}
	supervise.Serve(h)
}

type host struct {
	pulumirpc.UnimplementedLanguageRuntimeServer
	executor      string
	engineAddress string
	children      supervise.Children // the programs running now
	// cancelled ends when the engine sends Cancel (Ctrl-C): the running program is interrupted.
	cancelled context.Context
	cancel    context.CancelFunc
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

func (h *host) Cancel(context.Context, *emptypb.Empty) (*emptypb.Empty, error) {
	h.cancel()
	return &emptypb.Empty{}, nil
}

// pythonOptions reads the `runtime.options` of Pulumi.yaml as the upstream host does: `virtualenv`
// (relative to the project root, or absolute) and `toolchain` (pip, the default, poetry or uv).
func pythonOptions(info *pulumirpc.ProgramInfo) (toolchain.PythonOptions, error) {
	opts := toolchain.PythonOptions{
		Root:       info.GetRootDirectory(),
		ProgramDir: info.GetProgramDirectory(),
		Toolchain:  toolchain.Pip,
	}
	for name, value := range info.GetOptions().AsMap() {
		text, isText := value.(string)
		if !isText {
			return opts, fmt.Errorf("the runtime option %q in Pulumi.yaml must be a string", name)
		}
		switch name {
		case "virtualenv":
			opts.Virtualenv = text
		case "toolchain":
			switch text {
			case "pip":
				opts.Toolchain = toolchain.Pip
			case "poetry":
				opts.Toolchain = toolchain.Poetry
			case "uv":
				opts.Toolchain = toolchain.Uv
			default:
				return opts, fmt.Errorf("the runtime option toolchain in Pulumi.yaml is %q; use pip, poetry or uv", text)
			}
		case "typechecker":
			return opts, errors.New("this Python host does not run a typechecker; remove the runtime option typechecker from Pulumi.yaml and run mypy or pyright yourself")
		}
	}
	return opts, nil
}

func (h *host) toolchainFor(info *pulumirpc.ProgramInfo) (toolchain.Toolchain, error) {
	if info == nil {
		return nil, errors.New("the engine sent no program information; this host needs Pulumi 3.120 or later")
	}
	opts, err := pythonOptions(info)
	if err != nil {
		return nil, err
	}
	return toolchain.ResolveToolchain(opts)
}

// InstallDependencies (`pulumi install`) creates the virtual environment and installs
// requirements.txt into it, streaming pip's output to the CLI.
func (h *host) InstallDependencies(
	req *pulumirpc.InstallDependenciesRequest, server pulumirpc.LanguageRuntime_InstallDependenciesServer,
) error {
	tc, err := h.toolchainFor(req.GetInfo())
	if err != nil {
		return err
	}
	closer, stdout, stderr, err := rpcutil.MakeInstallDependenciesStreams(server, req.GetIsTerminal())
	if err != nil {
		return err
	}
	defer closer.Close()
	fmt.Fprint(stdout, "Installing dependencies...\n\n")
	err = tc.InstallDependencies(server.Context(), req.GetInfo().GetProgramDirectory(),
		req.GetUseLanguageVersionTools(), true /* showOutput */, stdout, stderr)
	if err != nil {
		return err
	}
	fmt.Fprint(stdout, "Finished installing dependencies\n\n")
	return closer.Close()
}

// GetRequiredPlugins is superseded by GetRequiredPackages, as upstream: the engine then asks that.
func (h *host) GetRequiredPlugins(
	context.Context, *pulumirpc.GetRequiredPluginsRequest,
) (*pulumirpc.GetRequiredPluginsResponse, error) {
	return nil, status.Errorf(codes.Unimplemented, "method GetRequiredPlugins not implemented")
}

// GetRequiredPackages is the engine's first question before a run: like upstream, it first makes
// the virtual environment when it is missing (the output goes to the CLI as it happens), then
// reports the Pulumi packages installed in it (packages.go).
func (h *host) GetRequiredPackages(
	ctx context.Context, req *pulumirpc.GetRequiredPackagesRequest,
) (*pulumirpc.GetRequiredPackagesResponse, error) {
	tc, err := h.toolchainFor(req.GetInfo())
	if err != nil {
		return nil, err
	}
	stdout, stderr, closeWriters, err := h.engineWriters(ctx)
	if err != nil {
		return nil, err
	}
	defer closeWriters()
	if err := tc.EnsureVenv(ctx, req.GetInfo().GetProgramDirectory(), false, true, stdout, stderr); err != nil {
		return nil, err
	}
	packages, err := pulumiPackages(ctx, tc)
	if err != nil {
		return nil, err
	}
	return &pulumirpc.GetRequiredPackagesResponse{Packages: packages}, nil
}

func (h *host) GetProgramDependencies(
	ctx context.Context, req *pulumirpc.GetProgramDependenciesRequest,
) (*pulumirpc.GetProgramDependenciesResponse, error) {
	tc, err := h.toolchainFor(req.GetInfo())
	if err != nil {
		return nil, err
	}
	installed, err := tc.ListPackages(ctx, req.GetTransitiveDependencies())
	if err != nil {
		return nil, fmt.Errorf("listing the program's Python packages: %w", err)
	}
	dependencies := make([]*pulumirpc.DependencyInfo, len(installed))
	for i, dep := range installed {
		dependencies[i] = &pulumirpc.DependencyInfo{Name: dep.Name, Version: dep.Version}
	}
	return &pulumirpc.GetProgramDependenciesResponse{Dependencies: dependencies}, nil
}

// About (`pulumi about`) names the Python that runs the program and the toolchain's version.
func (h *host) About(ctx context.Context, req *pulumirpc.AboutRequest) (*pulumirpc.AboutResponse, error) {
	tc, err := toolchain.ResolveToolchain(toolchain.PythonOptions{Toolchain: toolchain.Pip})
	if req.GetInfo() != nil {
		tc, err = h.toolchainFor(req.GetInfo())
	}
	if err != nil {
		return nil, err
	}
	info, err := tc.About(ctx)
	if err != nil {
		return nil, err
	}
	return &pulumirpc.AboutResponse{
		Executable: info.PythonExecutable,
		Version:    info.PythonVersion.String(),
		Metadata:   map[string]string{"toolchainVersion": info.ToolchainVersion.String()},
	}, nil
}

// executorArguments are the executor's flags, named and ordered as the upstream host passes them.
func (h *host) executorArguments(req *pulumirpc.RunRequest) []string {
	args := []string{h.executor}
	flagIfSet := func(name, value string) {
		if value != "" {
			args = append(args, "--"+name, value)
		}
	}
	flagIfSet("monitor", req.GetMonitorAddress())
	flagIfSet("engine", h.engineAddress)
	flagIfSet("project", req.GetProject())
	flagIfSet("root_directory", req.GetInfo().GetRootDirectory())
	flagIfSet("stack", req.GetStack())
	flagIfSet("pwd", req.GetPwd())
	flagIfSet("dry_run", strconv.FormatBool(req.GetDryRun()))
	flagIfSet("parallel", strconv.Itoa(int(req.GetParallel())))
	flagIfSet("organization", req.GetOrganization())
	entry := req.GetInfo().GetEntryPoint()
	if entry == "" {
		entry = "."
	}
	args = append(args, entry)
	return append(args, req.GetArgs()...)
}

func (h *host) Run(ctx context.Context, req *pulumirpc.RunRequest) (*pulumirpc.RunResponse, error) {
	tc, err := h.toolchainFor(req.GetInfo())
	if err != nil {
		return nil, err
	}
	// Made by GetRequiredPackages or `pulumi install`; missing here, the error says how to make it.
	if err := tc.ValidateVenv(ctx); err != nil {
		return nil, err
	}
	config, err := json.Marshal(req.GetConfig())
	if err != nil {
		return nil, fmt.Errorf("serializing the stack configuration: %w", err)
	}
	secretKeys := req.GetConfigSecretKeys()
	if secretKeys == nil {
		secretKeys = []string{}
	}
	secretKeysJSON, err := json.Marshal(secretKeys)
	if err != nil {
		return nil, fmt.Errorf("serializing the secret configuration keys: %w", err)
	}

	// Ends on Cancel (Ctrl-C in the CLI) or when the engine stops waiting for this request.
	runCtx, stopRun := context.WithCancel(h.cancelled)
	defer stopRun()
	context.AfterFunc(ctx, stopRun)
	cmd, err := tc.Command(runCtx, h.executorArguments(req)...)
	if err != nil {
		return nil, err
	}
	// An interrupt first, as a user's Ctrl-C, so the program's `finally` blocks run; then a kill.
	cmd.Cancel = func() error {
		if err := cmd.Process.Signal(os.Interrupt); err != nil {
			return cmd.Process.Kill()
		}
		return nil
	}
	cmd.WaitDelay = cancelGrace
	cmd.Stdout = os.Stdout
	cmd.Stderr = os.Stderr
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	cmd.Env = append(env, "PULUMI_CONFIG="+string(config), "PULUMI_CONFIG_SECRET_KEYS="+string(secretKeysJSON))

	err = cmd.Start()
	if err == nil {
		h.children.Track(cmd.Process, true)
		err = cmd.Wait()
		h.children.Track(cmd.Process, false)
	}
	return runResponse(err), nil
}

// runResponse reports the program's end as the upstream host does: exit code 32 means the program
// already reported its error (an exception's traceback), so the engine only stops (Bail); another
// non-zero code is one line naming it.
func runResponse(err error) *pulumirpc.RunResponse {
	if err == nil {
		return &pulumirpc.RunResponse{}
	}
	// The program's last writes reach the engine before the error does.
	_ = os.Stdout.Sync()
	_ = os.Stderr.Sync()
	var exitErr *exec.ExitError
	if !errors.As(err, &exitErr) {
		return &pulumirpc.RunResponse{
			Error: fmt.Sprintf("problem executing program (could not run language executor): %v", err),
		}
	}
	switch code := exitErr.ExitCode(); code {
	case exitAfterReportedError:
		return &pulumirpc.RunResponse{Bail: true}
	case -1:
		return &pulumirpc.RunResponse{Error: fmt.Sprintf("program exited unexpectedly: %v", exitErr)}
	default:
		return &pulumirpc.RunResponse{Error: fmt.Sprintf("program exited with non-zero exit code: %d", code)}
	}
}
