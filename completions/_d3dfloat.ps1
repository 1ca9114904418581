
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'd3dfloat' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'd3dfloat'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'd3dfloat' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour the human output (auto: only on a terminal, and not with NO_COLOR)')
            [CompletionResult]::new('--plain', '--plain', [CompletionResultType]::ParameterName, 'Just the answer, one line per input (stable, for scripts)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'One JSON object per input, per line, with a "schema" field (stable, for scripts)')
            [CompletionResult]::new('--csv', '--csv', [CompletionResultType]::ParameterName, 'CSV: a header, then one row per input (stable, for scripts)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('decode', 'decode', [CompletionResultType]::ParameterValue, 'Bits to fields, class and exact value')
            [CompletionResult]::new('encode', 'encode', [CompletionResultType]::ParameterValue, 'A value to bits, with explicit rounding')
            [CompletionResult]::new('convert', 'convert', [CompletionResultType]::ParameterValue, 'Bulk-convert binary data: raw little-endian streams, DDS textures, EXR and HDR images')
            [CompletionResult]::new('op', 'op', [CompletionResultType]::ParameterValue, 'Evaluate a D3D shader instruction: every result a conforming GPU may return')
            [CompletionResult]::new('ulp-diff', 'ulp-diff', [CompletionResultType]::ParameterValue, 'Distance in ULPs between two values, stdin pairs, or two raw buffers')
            [CompletionResult]::new('probe', 'probe', [CompletionResultType]::ParameterValue, 'Run the instructions on a Vulkan device and judge every result by the D3D rules')
            [CompletionResult]::new('generate', 'generate', [CompletionResultType]::ParameterValue, 'Write shell completions or man pages (for packaging and the checked-in copies)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'd3dfloat;decode' {
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Format of the patterns (or bc6h_uf16, bc6h_sf16: one BC6H block)')
            [CompletionResult]::new('--fmt', '--fmt', [CompletionResultType]::ParameterName, 'Format of the patterns (or bc6h_uf16, bc6h_sf16: one BC6H block)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour the human output (auto: only on a terminal, and not with NO_COLOR)')
            [CompletionResult]::new('--plain', '--plain', [CompletionResultType]::ParameterName, 'Just the answer, one line per input (stable, for scripts)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'One JSON object per input, per line, with a "schema" field (stable, for scripts)')
            [CompletionResult]::new('--csv', '--csv', [CompletionResultType]::ParameterName, 'CSV: a header, then one row per input (stable, for scripts)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'd3dfloat;encode' {
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Target format')
            [CompletionResult]::new('--fmt', '--fmt', [CompletionResultType]::ParameterName, 'Target format')
            [CompletionResult]::new('-r', '-r', [CompletionResultType]::ParameterName, 'Rounding direction')
            [CompletionResult]::new('--rounding', '--rounding', [CompletionResultType]::ParameterName, 'Rounding direction')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour the human output (auto: only on a terminal, and not with NO_COLOR)')
            [CompletionResult]::new('--saturate', '--saturate', [CompletionResultType]::ParameterName, 'Keep finite values finite: overflow gives the largest finite value in every mode')
            [CompletionResult]::new('--plain', '--plain', [CompletionResultType]::ParameterName, 'Just the answer, one line per input (stable, for scripts)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'One JSON object per input, per line, with a "schema" field (stable, for scripts)')
            [CompletionResult]::new('--csv', '--csv', [CompletionResultType]::ParameterName, 'CSV: a header, then one row per input (stable, for scripts)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'd3dfloat;convert' {
            [CompletionResult]::new('--from', '--from', [CompletionResultType]::ParameterName, 'Source format (needed for raw input; a container knows its own)')
            [CompletionResult]::new('--to', '--to', [CompletionResultType]::ParameterName, 'Target format (or bc6h_uf16, bc6h_sf16: BC6H blocks, from a container input)')
            [CompletionResult]::new('--quality', '--quality', [CompletionResultType]::ParameterName, 'BC6H output: how hard the encoder looks (fast: 1 partition, the finest mode precision that fits; normal: 4 partitions, one precision finer too; slow: 12 partitions, more precisions, more refinement)')
            [CompletionResult]::new('-r', '-r', [CompletionResultType]::ParameterName, 'Rounding direction')
            [CompletionResult]::new('--rounding', '--rounding', [CompletionResultType]::ParameterName, 'Rounding direction')
            [CompletionResult]::new('--channels', '--channels', [CompletionResultType]::ParameterName, 'Float channels per texel beside a packed format: 3 (RGB) or 4 (RGBA) [default: 3 raw, 4 DDS]; from a container''s floats, the first N (1 to 4)')
            [CompletionResult]::new('--compression', '--compression', [CompletionResultType]::ParameterName, 'Compression of an .exr output')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output file, or - for stdout [default: stdout]')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output file, or - for stdout [default: stdout]')
            [CompletionResult]::new('--max-pixels', '--max-pixels', [CompletionResultType]::ParameterName, 'Largest image an .hdr or .exr header may declare, in pixels (width x height)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour the human output (auto: only on a terminal, and not with NO_COLOR)')
            [CompletionResult]::new('--saturate', '--saturate', [CompletionResultType]::ParameterName, 'Keep finite values finite: overflow gives the largest finite value in every mode')
            [CompletionResult]::new('--raw', '--raw', [CompletionResultType]::ParameterName, 'Write raw data whatever the output''s name')
            [CompletionResult]::new('--no-progress', '--no-progress', [CompletionResultType]::ParameterName, 'Never show a progress bar')
            [CompletionResult]::new('--plain', '--plain', [CompletionResultType]::ParameterName, 'Just the answer, one line per input (stable, for scripts)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'One JSON object per input, per line, with a "schema" field (stable, for scripts)')
            [CompletionResult]::new('--csv', '--csv', [CompletionResultType]::ParameterName, 'CSV: a header, then one row per input (stable, for scripts)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'd3dfloat;op' {
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Working format: f32, f16 or f64 (the double instruction names imply f64)')
            [CompletionResult]::new('--fmt', '--fmt', [CompletionResultType]::ParameterName, 'Working format: f32, f16 or f64 (the double instruction names imply f64)')
            [CompletionResult]::new('--rules', '--rules', [CompletionResultType]::ParameterName, 'Rule set: d3d11 (Direct3D 11 and later) or d3d10 (1 ULP for 32-bit arithmetic)')
            [CompletionResult]::new('--check', '--check', [CompletionResultType]::ParameterName, 'Check a claimed result (bits or value): exit 0 if it conforms, 1 if not')
            [CompletionResult]::new('--asm', '--asm', [CompletionResultType]::ParameterName, 'A sequence of instructions in shader assembly (''dp3 r0.x, v0.xyz, v0.xyz; rsq r0.x, r0.x''): the interval each output component may take (with --input, --output)')
            [CompletionResult]::new('--expr', '--expr', [CompletionResultType]::ParameterName, 'An HLSL expression (''normalize(float3(1, 2, 3))''), expanded into the sequences compilers emit: the interval each result component may take')
            [CompletionResult]::new('--input', '--input', [CompletionResultType]::ParameterName, 'With --asm: an input register''s values, v0=1,2,3 (values or bit patterns); with --expr: a variable''s, NAME=1,2,3. Repeat for each')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'With --asm: the register (and components) reported, r1 or r1.xy; the last destination written when absent')
            [CompletionResult]::new('--operands', '--operands', [CompletionResultType]::ParameterName, 'Judge raw operand buffers, one file per source operand (with --results); with --asm or --expr, REG=FILE (or NAME=FILE) per input, its components interleaved')
            [CompletionResult]::new('--results', '--results', [CompletionResultType]::ParameterName, 'The results buffer that goes with --operands')
            [CompletionResult]::new('--violations', '--violations', [CompletionResultType]::ParameterName, 'With --operands: write every violating line as ''OP ARG... = RESULT  # index N'' to FILE (N: the line''s element index in the buffers)')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'With --list: the most violating lines listed')
            [CompletionResult]::new('--report', '--report', [CompletionResultType]::ParameterName, 'With --operands: also write the verdict as one self-contained HTML page, with a plot of the error against the input')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour the human output (auto: only on a terminal, and not with NO_COLOR)')
            [CompletionResult]::new('--list', '--list', [CompletionResultType]::ParameterName, 'With --operands and --json or --csv: list each violating line''s index and class (up to --limit)')
            [CompletionResult]::new('--plain', '--plain', [CompletionResultType]::ParameterName, 'Just the answer, one line per input (stable, for scripts)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'One JSON object per input, per line, with a "schema" field (stable, for scripts)')
            [CompletionResult]::new('--csv', '--csv', [CompletionResultType]::ParameterName, 'CSV: a header, then one row per input (stable, for scripts)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'd3dfloat;ulp-diff' {
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Format of A and B (or of the buffers'' elements)')
            [CompletionResult]::new('--fmt', '--fmt', [CompletionResultType]::ParameterName, 'Format of A and B (or of the buffers'' elements)')
            [CompletionResult]::new('--max', '--max', [CompletionResultType]::ParameterName, 'Exit 1 when |distance| exceeds N or a NaN is involved')
            [CompletionResult]::new('--abs-tol', '--abs-tol', [CompletionResultType]::ParameterName, 'Exit 1 when an element is not within A of the expected value (with --rel-tol: within A + R x |expected|, numpy''s isclose); counted beside --max')
            [CompletionResult]::new('--rel-tol', '--rel-tol', [CompletionResultType]::ParameterName, 'Exit 1 when an element is not within R x |expected| of the expected value (plus --abs-tol), as numpy''s isclose(actual, expected, rtol=R, atol=A)')
            [CompletionResult]::new('--files', '--files', [CompletionResultType]::ParameterName, 'Compare two raw little-endian buffers element by element')
            [CompletionResult]::new('--report', '--report', [CompletionResultType]::ParameterName, 'With --files: also write the comparison as one self-contained HTML page (the histogram of distances, and a heat map per pixel with --width)')
            [CompletionResult]::new('--width', '--width', [CompletionResultType]::ParameterName, 'With --files: the raw buffers are images W pixels wide (for the report''s heat map, and the x and y of the elements named)')
            [CompletionResult]::new('--channels', '--channels', [CompletionResultType]::ParameterName, 'With --width: elements per pixel (RGB from the first three; a packed word is one)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour the human output (auto: only on a terminal, and not with NO_COLOR)')
            [CompletionResult]::new('--no-flush', '--no-flush', [CompletionResultType]::ParameterName, 'Count f32 subnormals as values instead of as zero (D3D arithmetic flushes them)')
            [CompletionResult]::new('--list', '--list', [CompletionResultType]::ParameterName, 'With --files: list every element over --max or the tolerance (every difference without them), NaN involved included: index, channel, both patterns, the distance, and for images the pixel''s x and y, before the summary')
            [CompletionResult]::new('--plain', '--plain', [CompletionResultType]::ParameterName, 'Just the answer, one line per input (stable, for scripts)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'One JSON object per input, per line, with a "schema" field (stable, for scripts)')
            [CompletionResult]::new('--csv', '--csv', [CompletionResultType]::ParameterName, 'CSV: a header, then one row per input (stable, for scripts)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'd3dfloat;probe' {
            [CompletionResult]::new('--device', '--device', [CompletionResultType]::ParameterName, 'Device: an index from --list-devices or part of its name [default: the first]')
            [CompletionResult]::new('--ops', '--ops', [CompletionResultType]::ParameterName, 'Instructions to probe, comma-separated [default: all]')
            [CompletionResult]::new('--count', '--count', [CompletionResultType]::ParameterName, 'Input lines per instruction (f16tof32 takes all 65,536 halves from 4096 up)')
            [CompletionResult]::new('--rules', '--rules', [CompletionResultType]::ParameterName, 'Rule set: d3d11 (Direct3D 11 and later) or d3d10')
            [CompletionResult]::new('--emit-log', '--emit-log', [CompletionResultType]::ParameterName, 'Write every line as ''OP ARG... = RESULT'' to FILE, for `d3dfloat op --plain < FILE`')
            [CompletionResult]::new('--seed', '--seed', [CompletionResultType]::ParameterName, 'Seed of the generated inputs')
            [CompletionResult]::new('--first', '--first', [CompletionResultType]::ParameterName, 'With --exhaustive: only the first N inputs of each sweep')
            [CompletionResult]::new('--range', '--range', [CompletionResultType]::ParameterName, 'With --exhaustive: only inputs START to END (excluded) of each sweep, decimal or 0x hex; an input''s index is its pattern (a << 16 | b for two f16 operands)')
            [CompletionResult]::new('--violations', '--violations', [CompletionResultType]::ParameterName, 'With --exhaustive: write each violating line as ''OP ARG... = RESULT  # index N'' to FILE (f16 instructions'' to FILE.f16), for `d3dfloat op --plain < FILE`')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'Violating lines written (--violations) or listed (--list) per instruction')
            [CompletionResult]::new('--report', '--report', [CompletionResultType]::ParameterName, 'Also write the report as one self-contained HTML page, with a plot of each instruction''s error against its input')
            [CompletionResult]::new('--via', '--via', [CompletionResultType]::ParameterName, 'Path of each shader to the device, comma-separated: direct (SPIR-V written by d3dfloat), vkd3d-shader or dxbc-spirv (DXBC written by d3dfloat, translated by that translator); with several, every instruction runs through each and the report compares them')
            [CompletionResult]::new('--translator-lib', '--translator-lib', [CompletionResultType]::ParameterName, 'With --via vkd3d-shader: the vkd3d-shader library to load [default: libvkd3d-shader.so.1 from the system]')
            [CompletionResult]::new('--dump-dxbc', '--dump-dxbc', [CompletionResultType]::ParameterName, 'Write each selected instruction''s DXBC compute shader (sampled and exhaustive forms) into DIR as NAME.FORMAT[.indexed].dxbc, then exit; no device is needed')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour the human output (auto: only on a terminal, and not with NO_COLOR)')
            [CompletionResult]::new('--list-devices', '--list-devices', [CompletionResultType]::ParameterName, 'List the Vulkan devices and exit')
            [CompletionResult]::new('--exhaustive', '--exhaustive', [CompletionResultType]::ParameterName, 'Every input instead of samples: all 2^32 f32 patterns of each one-operand instruction, all 65,536 f16 ones, every pair of f16 operands (2^32)')
            [CompletionResult]::new('--list', '--list', [CompletionResultType]::ParameterName, 'With --exhaustive and --json or --csv: list each violating line''s index and class (up to --limit per instruction)')
            [CompletionResult]::new('--plain', '--plain', [CompletionResultType]::ParameterName, 'Just the answer, one line per input (stable, for scripts)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'One JSON object per input, per line, with a "schema" field (stable, for scripts)')
            [CompletionResult]::new('--csv', '--csv', [CompletionResultType]::ParameterName, 'CSV: a header, then one row per input (stable, for scripts)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'd3dfloat;generate' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour the human output (auto: only on a terminal, and not with NO_COLOR)')
            [CompletionResult]::new('--plain', '--plain', [CompletionResultType]::ParameterName, 'Just the answer, one line per input (stable, for scripts)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'One JSON object per input, per line, with a "schema" field (stable, for scripts)')
            [CompletionResult]::new('--csv', '--csv', [CompletionResultType]::ParameterName, 'CSV: a header, then one row per input (stable, for scripts)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'd3dfloat;help' {
            [CompletionResult]::new('decode', 'decode', [CompletionResultType]::ParameterValue, 'Bits to fields, class and exact value')
            [CompletionResult]::new('encode', 'encode', [CompletionResultType]::ParameterValue, 'A value to bits, with explicit rounding')
            [CompletionResult]::new('convert', 'convert', [CompletionResultType]::ParameterValue, 'Bulk-convert binary data: raw little-endian streams, DDS textures, EXR and HDR images')
            [CompletionResult]::new('op', 'op', [CompletionResultType]::ParameterValue, 'Evaluate a D3D shader instruction: every result a conforming GPU may return')
            [CompletionResult]::new('ulp-diff', 'ulp-diff', [CompletionResultType]::ParameterValue, 'Distance in ULPs between two values, stdin pairs, or two raw buffers')
            [CompletionResult]::new('probe', 'probe', [CompletionResultType]::ParameterValue, 'Run the instructions on a Vulkan device and judge every result by the D3D rules')
            [CompletionResult]::new('generate', 'generate', [CompletionResultType]::ParameterValue, 'Write shell completions or man pages (for packaging and the checked-in copies)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'd3dfloat;help;decode' {
            break
        }
        'd3dfloat;help;encode' {
            break
        }
        'd3dfloat;help;convert' {
            break
        }
        'd3dfloat;help;op' {
            break
        }
        'd3dfloat;help;ulp-diff' {
            break
        }
        'd3dfloat;help;probe' {
            break
        }
        'd3dfloat;help;generate' {
            break
        }
        'd3dfloat;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
