/* The laws' text, written once: what breaks, why, how zealot checks it,
 * and the fix, for every law id the findings cite. src/cmd/explain.c renders
 * it three ways (`zealot explain ID`, zealot-laws(7), docs/laws.md);
 * tests/cli/docs.sh holds that every law id src/ cites has an entry here.
 */
#include "lawdoc.h"

#include <string.h>
#include <strings.h>

#include "../base/util.h"

static const struct law_doc laws[] = {
    /* Memory: the budget equation */
    {"M01", "budget against the memory the driver really leaves",
     "A plan that fits the size printed on the box fails to boot, or boots with no room left.",
     "A card's advertised size is larger than what the driver lets a process allocate (an RTX 3090 sells as "
     "24,576 MiB and leaves about 24,123 MiB); total minus used overstates it further.",
     "Each device profile carries both figures and plans against the addressable one; the endpoint key "
     "ADDRESSABLE_MIB overrides it.",
     "Set ADDRESSABLE_MIB to what nvidia-smi reports free on the idle card."},
    {"M02", "price the KV cache with ggml's real block sizes",
     "The KV line of a plan is wrong by tens of percent, so a shape that looked safe runs out of memory.",
     "Each layer that holds KV stores one K row and one V row per token, in the cache type's block size "
     "(f16 2 bytes an element, q8_0 34 bytes per 32, q4_0 18 per 32, q4_1 20 per 32 ...). Recurrent layers hold "
     "none. A guessed bytes-per-element figure (q4_0 as 0.625) is q4_1's, not q4_0's.",
     "plan sums the rows layer by layer from the payload's own geometry, exact to 0.01 MiB against boot ledgers.",
     "Nothing to set: read the KV line of zealot plan; compare it with zealot ledger after a boot."},
    {"M03", "each slot gets its share of the pool, and no more",
     "A client sends a prompt longer than its slot's window and gets HTTP 400; nothing truncates it.",
     "The engine rounds the total context up to a multiple of 256 and, unless the cache is unified, gives each "
     "of the PARALLEL slots CTX_SIZE / PARALLEL cells, rounded to 256 again. That per-slot window is the "
     "contract with clients.",
     "plan prints the per-slot window; check refuses a CTX_SIZE that PARALLEL does not divide; emit harness "
     "hands the window to clients.",
     "Make CTX_SIZE a multiple of PARALLEL (and of 256 per slot), and size it for the longest prompt a client "
     "sends times the slots."},
    {"M04", "recurrent state is billed per slot, not per token",
     "A hybrid model's plan misses hundreds of MiB once a drafter is armed.",
     "DeltaNet and Mamba layers keep a fixed state per sequence: (n_embd_r + n_embd_s) x 4 bytes per recurrent "
     "layer per cell. A depth-N drafter adds rollback copies of that state (the seeds' three-slot 9B: 150.75 "
     "MiB without the drafter, 452.25 MiB with it).",
     "plan bills the state per slot from the payload's SSM geometry, with the rollback planes of "
     "SPEC_DRAFT_N_MAX when a drafter is armed.",
     "Count the state in the budget; lower PARALLEL or SPEC_DRAFT_N_MAX if it does not fit."},
    {"M05", "an MTP drafter costs a whole second context",
     "A drafter priced as a small proposal buffer (about 0.4 GiB) pushes a boot out of memory.",
     "The multi-token-prediction drafter builds its own KV context over the target's whole pool, at its own "
     "cache types (f16 unless set), with its own compute buffers: about 2.4 GiB on the seeds' 9B.",
     "plan bills the draft context's KV and compute as their own terms.",
     "Budget it, or quantize its cache with SPEC_DRAFT_TYPE_K and SPEC_DRAFT_TYPE_V."},
    {"M06", "bill the multimodal projector before launch",
     "The engine's own fit check passes, then loading the projector runs the card out of memory.",
     "The engine checks the fit first and allocates the projector afterwards: its weights plus the encoder's "
     "worst-case compute (873 MiB for a 629 MB Q8_0 tower), about 1.2 GiB a plan would miss.",
     "plan prices the projector's weights and compute as terms before anything boots.",
     "Keep the room, or set MMPROJ_FILE= (empty) for a text-only endpoint."},
    {"M07", "compute buffers move with the shape",
     "A saving measured at one shape is budgeted at another and the boot fails.",
     "The compute buffers are reserved when the graph is captured and depend on UBATCH_SIZE, the pool, the "
     "cache types and flash attention: halving the ubatch freed 1,306 MiB at one shape and 406 MiB at another.",
     "plan models the buffers from the graph at the shape asked for and corrects them with calibration from "
     "recorded boots.",
     "Re-plan after every shape change; never carry a figure from one shape to another."},
    {"M08", "a measured boot outranks a formula", "A plan trusts its model where a boot has already said otherwise.",
     "The engine prints what it really allocated at log verbosity 4. That ledger is ground truth; a projection "
     "is only a projection.",
     "ledger reads a boot log; ledger --record stores it, and later plans calibrate their terms from the stored "
     "boots of the same runtime and payload.",
     "Keep VERBOSITY=4, record boots, and let plan use them."},
    {"M09", "keep a slack band after every term",
     "A shape that fits to the last MiB boots, then dies on the next image request or on fragmentation.",
     "Memory taken after the boot (a vision request's encoder, allocator fragmentation) has to come from "
     "somewhere; a plan with no free band has none.",
     "The fit gate refuses a plan that leaves less than SLACK_MIB (default 1,024 MiB) free; check and serve "
     "both apply it, and the tests prove the refusal. Once it runs, deploy's memory step and audit warn when the "
     "settled memory exceeds the plan by more than the band (256 MiB or 5 %): the slack band is that much "
     "smaller.",
     "Shrink the shape (zealot rungs lists the one-line changes, zealot solve the best fitting shapes) or lower "
     "SLACK_MIB knowingly."},
    {"M10", "KV spilled to host memory halves decode", "Decode runs at half speed and nothing reports an error.",
     "When the cache lands in unified or host memory, every token reads it over a slower path.",
     "deploy reads the boot's journal on a GPU endpoint: a KV buffer the engine put in host memory (CPU or "
     "CUDA_Host KV buffer) fails its ledger step, named M10, and the deploy rolls back. After the probes, "
     "deploy's memory step and audit hold the settled memory to the plan (src/live/memory.c): the process's "
     "memory on GPU's card (nvidia-smi --query-compute-apps -i GPU) short of the plan's card total by more than "
     "the band (256 MiB or 5 % of the plan, the larger) is a spill, named M10 (deploy rolls back, audit "
     "diverges); a host RSS beyond the plan's host total by more than the band (1,024 MiB at least beside a card) "
     "warns.",
     "Re-read the ledger after each shape change; shrink the pool until KV fits on the card."},
    {"M11", "a shared K/V attention still reserves both",
     "A plan for a gemma4-class model is short by the V half of its cache.",
     "Where the architecture shares K and V (attention_k_eq_v), the engine's cache still allocates the K and the "
     "V tensor.",
     "plan prices both halves for such layers.", "Nothing to set: it is a figure, priced as the engine does."},
    {"M13", "a router's worst co-resident set fits",
     "A router endpoint (MODELS) that fits one member at a time runs out of memory when the engine keeps "
     "MODELS_MAX children resident: the next load fails or the host swaps.",
     "The engine's router evicts by count (the least recently used once MODELS_MAX run), never by memory, so any "
     "MODELS_MAX members may be resident together, each its own process with its own context, compute buffers, "
     "runtime context on a card, prompt cache (--cache-ram, 8,192 MiB by default per child) and context "
     "checkpoints.",
     "plan prices every member as the child the router starts and sums, on every device and on the host, its "
     "MODELS_MAX largest there and the router process; serve and plan refuse when a sum leaves less than the slack "
     "band, and plan names the largest MODELS_MAX that fits.",
     "Set MODELS_MAX to the safe figure plan prints, shrink a member, or give members a smaller --cache-ram."},

    /* Shape and flags */
    {"S01", "never let --fit size the pool with several slots",
     "Each slot's window shrinks below what clients were promised.",
     "The engine's fit mode maximises the total pool; with PARALLEL > 1 it splits a pool it chose, not the "
     "one you meant.",
     "check refuses a shape that would run fit with more than one slot; argv always passes an explicit "
     "--ctx-size.",
     "Set CTX_SIZE explicitly (and keep fit off)."},
    {"S02", "the window stops at the trained context", "Answers degrade past the length the model was trained on.",
     "Beyond context_length, positions are out of distribution unless rope scaling is configured.",
     "check compares the per-slot window with the payload's context_length.",
     "Lower CTX_SIZE or raise PARALLEL so each slot stays within the trained context."},
    {"S03", "a quantized V cache needs flash attention", "The engine refuses to start or falls back to a slower path.",
     "Only the flash-attention kernels read a quantized V cache.",
     "check refuses CACHE_TYPE_V other than f16/bf16/f32 with FLASH_ATTN not on.",
     "Set FLASH_ATTN=on or CACHE_TYPE_V=f16."},
    {"S04", "there is no fp8 cache type",
     "A cache type the engine does not know is rejected at launch (or, elsewhere, silently replaced).",
     "llama.cpp's cache types are f32, f16, bf16 and the q4/q5/q8 and iq4_nl block types; q8_0 is the 8-bit one.",
     "check refuses an unknown CACHE_TYPE_K/V and lists the allowed types.", "Use q8_0 for an 8-bit cache."},
    {"S05", "speculative flags move as a set", "Half a speculative configuration has crashed the engine at load.",
     "The draft options only make sense together; a stray --spec-* flag without a drafter type is undefined "
     "territory.",
     "argv strips every --spec-* flag when SPEC_TYPE=none; check refuses inconsistent sets.",
     "Set SPEC_TYPE and its SPEC_DRAFT_* keys together, or SPEC_TYPE=none."},
    {"S06", "MTP is a property of the payload",
     "A ghost drafter boots that never accepts a token (acceptance 0.00), costing memory for nothing.",
     "draft-mtp needs the header's nextn_predict_layers > 0 and the blk.N.nextn.* tensors in the file; a header "
     "can claim the first without the second.",
     "check reads both the header and the tensor list.",
     "Use a payload that carries the MTP tensors, or SPEC_TYPE=none."},
    {"S07", "two context drafters cannot share a process",
     "The engine refuses the pair, or on a hybrid model silently degrades output.",
     "Only draft-mtp with ngram-mod is a legal pair; on a recurrent hybrid, ngram-mod turns off state rollback, "
     "so rejected drafts corrupt the state.",
     "check refuses illegal pairs and warns on the hybrid case.", "Use one drafter."},
    {"S08", "the ubatch is a prefill knob, bounded by the batch",
     "The engine aborts at load (an assertion on its output count) or a plan expects decode to change.",
     "UBATCH_SIZE must not exceed BATCH_SIZE, and BATCH_SIZE must be at least PARALLEL (the engine reserves an "
     "output per slot). Decode does not move with the ubatch; each step of it costs compute buffers.",
     "check refuses UBATCH_SIZE > BATCH_SIZE and BATCH_SIZE < PARALLEL; plan prices the buffers per ubatch.",
     "Keep PARALLEL <= BATCH_SIZE and UBATCH_SIZE <= BATCH_SIZE."},
    {"S09", "speculation pays only with room to spare",
     "An armed drafter on a tight card halves decode instead of speeding it.",
     "The drafter's context and buffers take the memory that kept the target's working set comfortable.",
     "check warns when a drafter is armed and the plan's free memory is below the slack band.",
     "Free room (zealot rungs) or disarm the drafter."},
    {"S10", "a custom tensor type locks the payload to its runtime",
     "A stock engine refuses the file, or a loader that ignores a transform key dequantizes it wrong, silently.",
     "Type ids beyond ggml's own (such as 142) exist only in the fork that defined them.",
     "inspect names the type; check warns, and refuses where the runtime is known not to define it.",
     "Pair the payload with the runtime that defines its type."},
    {"S11", "prefer the Q8_0 projector with several slots",
     "Concurrent image requests crash the engine with a BF16 projector.",
     "The BF16 vision tower's path has failed under concurrency in this engine.",
     "check warns on a BF16 projector with PARALLEL > 1.", "Use the Q8_0 projector."},
    {"S12", "an adapter's provenance is a hint, not a gate",
     "An adapter for another base loads without complaint and changes answers; one touching the embeddings "
     "breaks the model.",
     "The loader matches tensor names, never hashes, so a mismatched base is not noticed.",
     "check warns when the adapter names a different base payload and refuses an adapter that touches "
     "token_embd.",
     "Use the adapter made for this payload."},
    {"S13", "a network bind needs an API key", "The endpoint answers anyone on the network.",
     "Binding to anything but loopback exposes the port; without a key the engine serves every caller.",
     "check warns when BIND_ADDR is not loopback and API_KEY_FILE is unset.",
     "Set API_KEY_FILE, or keep BIND_ADDR=127.0.0.1 behind a proxy."},
    {"S14", "the build proves its quantized flash-attention kernels",
     "A quantized or mixed K/V cache falls back to a slow path or fails, on a build that lacks the kernel.",
     "Which K/V type pairs a CUDA build compiled is recorded in its CMakeCache.txt (GGML_CUDA_FA_QUANTS); an "
     "asymmetric pair such as f16 K with q8_0 V needs its own kernel.",
     "check reads the runtime's build tree when it is readable, else CUDA_FA_QUANTS, and warns on a missing "
     "pair.",
     "Rebuild with the pairs you use, or choose a pair the build has."},
    {"S15", "ask the runtime what it supports, never grep it",
     "A runtime that cannot load the architecture is trusted because a string search found the name.",
     "Grepping a binary for an architecture name matches for every architecture; only the source tree or the "
     "runtime's own --help/--version says what it loads.",
     "check reads the runtime's version output.",
     "Point RUNTIME at a build whose version supports the payload's architecture."},
    {"S16", "the AMX fault: repacked weights crash a native build",
     "On an Intel CPU with AMX the engine dies with SIGILL at warm-up, or (MLA and deepseek4 payloads in f16) "
     "aborts while reserving its graph: GGML_ASSERT(*cur_backend_id != -1) failed.",
     "A build with the AMX kernels packs eligible weights (q4_0, q4_1, q8_0, q4_K, q5_K, q6_K, iq4_xs with whole "
     "32-row tiles) into an AMX buffer when repacking is on, and its tile kernel faults. f16 weights with whole "
     "tiles go there too and run, except the MLA decompression stacks (attn_k_b, attn_v_b of deepseek2 and "
     "mistral4) and deepseek4's grouped output projection (attn_output_a): the graph multiplies them by a "
     "permuted operand, the AMX buffer takes only contiguous ones and "
     "no other backend may read its weights, so the scheduler finds no backend for the node.",
     "check raises it on the cpu device when REPACK is on, the payload has such a weight (or such an f16 MLA "
     "stack or output projection) and the runtime's build tree (or a --boot-log's system_info line) shows AMX "
     "kernels.",
     "Set REPACK=0 (--no-repack)."},

    /* Configuration and launch */
    {"C01", "an unknown key is an error",
     "A misspelt or invented key is ignored and the engine boots with a default (an invented KV_CACHE_TYPE once "
     "booted f16 and ran out of memory like a model fault).",
     "A shell-style environment file accepts any name; nothing would tell you.",
     "The endpoint parser refuses unknown keys with a did-you-mean.", "Use the key zealot suggests."},
    {"C02", "unset means default, empty means opt-out",
     "A default silently overrides an explicit value, or an empty value is read as a default.",
     "A key absent from the file takes its documented default; a key present and empty opts out where the key "
     "documents an opt-out (MMPROJ_FILE= text only, LORA_FILE= no adapter) and is an error elsewhere.",
     "The endpoint parser applies exactly these semantics; check reports values that do not parse.",
     "Remove a key to get its default; leave it empty only where zealot check --keys lists an opt-out."},
    {"C03", "a missing payload is a refusal, not a half-load",
     "Under a restart policy a missing file becomes a crash loop that reads like a runtime fault.",
     "The engine would start, fail to load and be restarted forever.",
     "check and serve refuse a missing or unreadable payload or runtime, naming the file, and a payload whose "
     "header holds a number the engine cannot load (a head count, head size, state size or width of 0, heads "
     "or groups that do not divide, more experts than the engine holds), naming the key and its value, as "
     "inspect and plan do; serve exits 78, which the emitted unit never restarts on.",
     "Fix the path, or zealot fetch the payload."},
    {"C04", "keep --metrics on", "Monitoring reads the endpoint as down while /health says 200.",
     "Without --metrics the engine answers /metrics with 501.",
     "argv passes --metrics unless METRICS=0; emit alerts covers the 501.", "Leave METRICS at its default (1)."},
    {"C05", "keep log verbosity at 4", "The boot log cannot prove what was allocated.",
     "Only at verbosity 4 does the engine print the ledger lines (KV, draft, state, compute).",
     "argv passes --log-verbosity 4 by default; check warns on a lower VERBOSITY.", "Leave VERBOSITY=4."},
    {"C06", "an alias is a contract",
     "Clients that key on the model id break after a rename, and the server notices nothing.",
     "The engine does not validate the requested model; it echoes ALIAS back.",
     "diff and deploy warn when ALIAS changes between eras.", "Keep ALIAS stable, or move the clients with it."},
    {"C07", "presence_penalty must reach argv",
     "A sampler the payload's metadata states but the engine does not read (presence_penalty) reaches no request.",
     "The engine reads sampling defaults from general.sampling.* in the GGUF (temp, top_k, top_p, min_p and a few "
     "more), but has no such key for presence_penalty.",
     "check warns only when the payload states general.sampling.presence_penalty (or another key the engine "
     "drops) and the endpoint does not pass it: argv renders PRESENCE_PENALTY as --presence-penalty.",
     "Set PRESENCE_PENALTY to the payload's value, or PRESENCE_PENALTY= to drop it knowingly."},
    {"C08", "the unit's start command must be executable",
     "A script without a #! line fails with 203/EXEC in a loop, and the GPU is never touched.",
     "systemd execs ExecStart directly; the kernel refuses a script with no interpreter line.",
     "emit and deploy check that ExecStart is an executable absolute path, a binary or a #! script.",
     "Point ExecStart at the zealot binary (make install puts it in PREFIX/bin)."},

    {"S17", "refuse what the engine's loader refuses, before boot",
     "A payload whose token list is longer than its token_embd rows (or a block past block_count) passes every "
     "other check, then the engine refuses it at load, under a restart policy in a loop.",
     "The engine's create_tensor holds every tensor to the shape the metadata implies and stops at the first "
     "that differs.",
     "inspect and check hold token_embd and output to {n_embd, n_vocab}, the norms to n_embd, attn_output and "
     "ffn_down to n_embd and every blk.N below block_count, naming the tensor and both shapes; and each "
     "block's attn_q/k/v (or fused attn_qkv) and attn_output to the shapes the architecture's own "
     "load_arch_tensors gives them from head_count, head_count_kv, key_length and value_length (read from the "
     "engine's source by scripts/gen-loader-attn.sh). An architecture whose attention the engine builds "
     "another way is named in an info finding: not checked, never guessed.",
     "Re-convert the payload, or fetch one whose tensors match its metadata."},
    {"S18", "an architecture llama-server cannot serve is named, not booted",
     "An endpoint whose MODEL_FILE is a vision tower, a vocoder, a speech model's backbone, a speculative "
     "drafter or a diffusion decoder boots into an abort, a refusal, or a server whose answers are errors or "
     "mean nothing, under a restart policy.",
     "The engine knows these architectures by name and its tools use them (llama-tts, mtmd, the speculative "
     "decoder), but llama-server serves text and embeddings: a clip tower has no llama_model graph, a "
     "vocoder's and a TTS backbone's output is audio that only llama-tts renders, and an EAGLE3, DFlash or "
     "gemma 4 assistant drafter takes its target's hidden states or context, and a diffusion decoder (dream, "
     "llada, llada-moe, rnd1) has no memory, without which llama-server computes no logits: every completion "
     "is HTTP 500; and t5's decoder attends to an encoding llama-server never makes of the prompt (it never "
     "calls llama_encode).",
     "check reads general.architecture and names each such architecture with the reason from the engine's "
     "source (src/models/clip.cpp, wavtokenizer-dec.cpp, pockettts.cpp, tools/tts, common/speculative.cpp, "
     "src/llama-context.cpp, tools/server/server-context.cpp); zealot archs lists them as not served, priced "
     "by no estimate.",
     "Serve a tower as MMPROJ_FILE beside its text model, a drafter with SPEC_DRAFT_MODEL_FILE beside its "
     "target (law S20; an eagle3 or dflash drafter as SPEC_TYPE=draft-eagle3 or draft-dflash, law S22), and a "
     "speech model with llama-tts and a diffusion decoder with llama-diffusion-cli, not llama-server."},
    {"S19", "t5encoder is served over one KV stream",
     "A t5encoder embedding endpoint with PARALLEL above 1 and a KV stream per slot (zealot's default) aborts "
     "at load, under a restart policy in a loop.",
     "The engine gives t5encoder the default KV cache; with a stream per slot its decode splits every ubatch "
     "by sequence (llama_kv_cache::init_batch: split_equal), and T5's relative position buckets refuse such a "
     "ubatch (src/llama-graph.cpp, llm_graph_input_pos_bucket::set_input: GGML_ASSERT(!ubatch->equal_seqs())); "
     "llama-server's first decode, at load (common_context_can_seq_rm), takes the assert.",
     "check names the shape (an error on KV_UNIFIED), plan says it in its verdict, and solve and rungs never "
     "offer it; tests/live/arch-small.sh boots it and holds the abort.",
     "Set KV_UNIFIED=1 (one stream the slots share) or PARALLEL=1."},
    {"S20", "a drafter model is paired with its target",
     "A drafter whose vocabulary is not its target's is refused by the engine after it is loaded (\"failed to "
     "initialize speculative decoding context: draft model vocab type must match target model\"): the server "
     "then answers without drafting and keeps the drafter's weights, KV cache and compute buffers, memory for "
     "nothing. A drafter file without SPEC_TYPE=draft-simple, or draft-simple without a drafter file, is half a "
     "speculative set.",
     "common/speculative.cpp (common_speculative_are_compatible) compares the tokenizer model, add_bos and BOS, "
     "add_eos and EOS, the vocabulary sizes (at most 128 apart) and every token's text from id 5; "
     "common_speculative_init_result loads SPEC_DRAFT_MODEL_FILE as an ordinary model with a context of the "
     "target's n_ctx and slots.",
     "check reads both headers and refuses the pair the engine refuses (tools/server/server-context.cpp logs "
     "the error and serves on); plan prices the drafter's weights, its KV "
     "cache and its compute as the draft terms.",
     "Use the drafter trained for the target (same tokenizer), and set SPEC_TYPE=draft-simple with "
     "SPEC_DRAFT_MODEL_FILE together."},
    {"S21", "a gemma4-assistant drafts beside its gemma4 target, as draft-mtp",
     "A gemma4-assistant is not a model of its own: its graph reads the target's token embeddings and hidden "
     "state and attends over the target's KV cache. Beside another target, or under another SPEC_TYPE, the "
     "engine fails at load or asserts; draft-mtp with a drafter file of another architecture is half a set.",
     "src/llama-context.cpp gives a gemma4-assistant context its target's as ctx_other; "
     "src/llama-model.cpp (create_memory) shares the target's layer n-2 (window) and n-1 (full) caches; "
     "src/models/gemma4-assistant.cpp concatenates the target's embedding with its hidden state "
     "(embedding_length_out wide).",
     "check refuses draft-mtp with a drafter that is not a gemma4-assistant, an assistant under another "
     "SPEC_TYPE, beside a target that is not gemma4, or reading a hidden state of another width; S06 admits "
     "draft-mtp on a target without nextn layers when its assistant is the drafter.",
     "Serve the gemma4-assistant made for the gemma4 target with SPEC_TYPE=draft-mtp and "
     "SPEC_DRAFT_MODEL_FILE."},
    {"S22", "an eagle3 or dflash drafter drafts as its own type, beside a target it can read",
     "An eagle3 or dflash drafter is fed its target's hidden states: under another SPEC_TYPE, beside a target "
     "with fewer layers than it reads, or of another width, the engine throws at load or aborts on an "
     "assert (a restart loop under systemd).",
     "common/speculative.cpp (draft-eagle3: exactly 3 extract layers, each at most the target's n_layer; "
     "draft-dflash: target_layer_ids) turns on the target's layer inputs (llama_set_embeddings_layer_inp); "
     "src/llama-context.cpp gives the draft context the target's as ctx_other when it lacks token_embd or "
     "output; src/models/eagle3.cpp fuses 3 x target_hidden_size features through fc and, without "
     "output.weight, projects through the target's output; src/models/dflash.cpp fuses its own width's "
     "features (the target's).",
     "check refuses draft-eagle3 or draft-dflash with a drafter of another architecture, an eagle3 or dflash "
     "drafter under another SPEC_TYPE, one reading a layer past the target's, an eagle3 whose "
     "target_hidden_size is not the target's width, and a drafter without output.weight of another width.",
     "Serve the eagle3 (or dflash) drafter converted for this target with SPEC_TYPE=draft-eagle3 (draft-dflash) "
     "and SPEC_DRAFT_MODEL_FILE."},
    {"C10", "the endpoint file means one thing to zealot and to systemd",
     "A bare CR in a value is a line break to systemd's EnvironmentFile=: ALIAS=x<CR>LD_PRELOAD=/tmp/evil.so "
     "passes a reader that keeps the CR, and the engine starts with LD_PRELOAD set.",
     "systemd, the shell, ssh and Ansible each read the file their own way; what zealot judged must be what "
     "systemd sets.",
     "zealot reads the file with systemd 252's EnvironmentFile= rules and refuses, naming the line, every byte "
     "sequence that would read differently: a bare CR, a NUL, control bytes, a comment ending in a backslash, an "
     "unquoted backslash, text after a closing quote, an unterminated quote, invalid UTF-8, a key systemd drops.",
     "Write the value plainly, or single-quote it ('blk\\.0=CPU'); one key per line."},
    {"C09", "a flag zealot renders is set by its key and nowhere else",
     "EXTRA_ARGS=--model other.gguf (or LLAMA_ARG_MODEL in the environment) serves another payload than the one "
     "check, plan and deploy judged, and --api-key puts the key in /proc/PID/cmdline.",
     "The engine takes the last value of a repeated flag and reads LLAMA_ARG_* variables as flags, so a second "
     "spelling silently overrides the gated one.",
     "Every key's row in the key table names the flags and LLAMA_ARG_* twins it owns; check, serve and deploy refuse "
     "any of them in EXTRA_ARGS or as a variable in the endpoint file, naming the key that owns it.",
     "Set the owning key instead (MODEL_FILE, CTX_SIZE, ...); an API key goes in a file named by API_KEY_FILE."},
    {"C12", "a router sets the set, a member its model",
     "A member file that sets a port, a device or a runtime is priced where it never runs, and a router file "
     "that sets a model's flag overrides every child's (the engine lays the router's command line over every "
     "preset section).",
     "The engine's router gives each child its address, port and alias, passes its own arguments to all of them, "
     "and spawns each from the preset's section.",
     "check, plan and serve refuse a member that sets a key only the router sets (the runtime, address, port, API "
     "key, device and memory keys, MODELS, MODELS_MAX) and a router that sets a member's (a payload, a shape key, "
     "an engine flag, EXTRA_ARGS); MODELS must hold at least one member file, each named with letters, digits, "
     "'-', '_' and '.'.",
     "Move the key to the side that owns it."},

    /* The runtime: pinned like the payload */
    {"R01", "the runtime is pinned like the payload",
     "A custom tensor type only one fork loads, a build floor that pairs MTP with a quantized V, an adapter an "
     "older build refuses: a runtime swapped under an endpoint breaks it at boot or, worse, loads it wrongly.",
     "A version line says nothing about the bytes that run; a hash and a build floor do.",
     "RUNTIME_SHA256 is checked like a payload pin (serve caches the stamp); RUNTIME_MIN_BUILD holds the build "
     "number of `RUNTIME --version`; check and deploy gate on both, serve refuses with 78.",
     "Point RUNTIME at the pinned build, or pin the new one after proving it (zealot fetch --pin records it)."},
    {"R02", "every flag the endpoint renders exists in the runtime",
     "A flag the runtime does not know ends the engine at boot, and under a restart policy that is a loop.",
     "Flags come and go between builds; the runtime's own --help is the only list that holds for it.",
     "check reads RUNTIME --help once per runtime hash (unprivileged, without the unit's environment), and every "
     "flag argv renders must be in it; a missing one is an error naming the flag and the build.",
     "Use a runtime build that has the flag, or drop the key that renders it."},

    /* After launch: health cannot see the payload */
    {"A01", "prove the live engine is the one intended",
     "Health, model list and a green test suite all pass while a stale drop-in booted another payload.",
     "None of those answers depends on which file was loaded.",
     "audit reads, in order, the unit's drop-ins, /proc/PID/cmdline, then the boot ledger, and compares each "
     "with the endpoint; deploy runs it after every restart.",
     "Remove the stray drop-in and redeploy."},
    {"A02", "stop by PID, never by name",
     "A hand-started engine keeps answering the port after the unit failed, or the wrong process is killed.",
     "A failed unit does not own a process somebody started by hand.",
     "audit names the PID that holds the port and whether it is the unit's.",
     "Stop that PID; never pkill by process name."},
    {"A03", "reasoning tokens count against max_tokens",
     "A short budget returns empty content with finish_reason length, which looks like a broken model.",
     "A reasoning model spends its budget thinking before it answers.",
     "probe uses budgets of at least 2,048 tokens for chat and 512 for vision.",
     "Give clients budgets that cover the reasoning."},
    {"A04", "vision needs an image_url part and a real image",
     "An image sent another way, or too small, never reaches the model.",
     "The engine reads images only from an OpenAI image_url content part; below 256 px the encoder has nothing "
     "to see (512 px bills about 280 prompt tokens).",
     "probe sends a 512 px image as an image_url part.", "Send images the same way."},
    {"A05", "measure rates from the engine's timings",
     "Rates read from a wall clock come out four times low, or three times off after a cold boot.",
     "A generation that stops on its own ends early; the first request after boot warms caches.",
     "bench reads prompt_per_second and predicted_per_second from timings, with ignore_eos, after a discarded "
     "warm-up request.",
     "Use zealot bench, not a stopwatch."},
    {"A06", "decode is bound by bytes read per token", "A cache type that looks free costs decode speed.",
     "Each generated token reads the weights and the KV once; f16 KV reads 1.882 times the bytes of q8_0, so "
     "decode drops while prefill holds.",
     "plan and rungs predict the decode rate from bytes per token; bench measures it.",
     "Weigh the cache type against the decode rate rungs prints."},
    {"A07", "the slot count is the concurrency contract",
     "Request N+1 waits for a slot; clients see latency, not errors.",
     "The engine runs PARALLEL conversations at once and queues the rest.",
     "probe checks the slot count; emit alerts fires when no slot is free for N minutes.",
     "Raise PARALLEL (and CTX_SIZE with it) or add endpoints."},
    {"A08", "clients need the template's reasoning_effort map",
     "A reasoning_effort value the template does not accept raises HTTP 500.",
     "Some chat templates accept only certain values.",
     "inspect and check report the values the template takes; emit harness writes the map for clients.",
     "Send only the values listed."},
    {"A09", "no CUDA GPUs after a reboot is a device node",
     "The engine says no CUDA GPUs are available and looks like a payload fault.",
     "After a reboot the NVIDIA device nodes may not exist yet.",
     "deploy recognises the message in the unit's journal when the start fails (restart or health) and names "
     "the cause, A09, with the fix.",
     "Run nvidia-modprobe -u -c=0, then restart."},
    /* What reaches the engine besides its argv (docs/trust.md) */
    {"C13", "a CPU-type Vulkan device is named to the engine",
     "DEVICE=lavapipe without GPU: the Vulkan engine boots and answers, but on the CPU: 'no usable GPU found, "
     "--gpu-layers option will be ignored', weights, KV and compute in CPU buffers, none of the plan's "
     "Vulkan0 and Vulkan_Host buffers; on a host with a GPU it uses that card instead.",
     "Without GGML_VK_VISIBLE_DEVICES, ggml-vulkan (ggml_vk_instance_init) takes every discrete and integrated "
     "GPU, else the first device that is not CPU-type, else none: Mesa's lavapipe is CPU-type, so only a listed "
     "index reaches it; GPU= is what writes that variable into the unit.",
     "check refuses a Vulkan profile of a CPU-type device (lavapipe) whose endpoint sets no GPU, and DEVICES "
     "listing one among several Vulkan devices (the engine takes lavapipe twice as GGML_VK_VISIBLE_DEVICES=0,0; "
     "GPU writes one index).",
     "Set GPU to the device's Vulkan index (vulkaninfo --summary; 0 where lavapipe is the only device)."},
    {"R03", "the engine reads no config file zealot has not judged",
     "A line in a config file the engine reads before its argv (swa-full = true) makes the sliding-window cache "
     "10.00 MiB where the plan billed 2.50 MiB (a gemma3 synth at 4,096 cells), and check, serve and audit "
     "saw nothing.",
     "The pinned engine applies /etc/llama.cpp/config.ini, then ${XDG_CONFIG_HOME:-$HOME/.config}/llama.cpp/"
     "config.ini (their \"*\" and \"default\" sections) before its environment and argv, and has no switch "
     "to skip them; a file that exists and cannot be read or parsed stops it.",
     "serve runs the engine with XDG_CONFIG_HOME=/dev/null, under which no file can exist, and reads the "
     "system-wide file as the unit's user: a setting a key owns, a refused or a priced flag is a refusal (78), "
     "a harmless one is said; check and deploy read it too, and audit reports the files the live engine read "
     "under its own environment.",
     "Remove the setting from the file; set it through its key or EXTRA_ARGS, where zealot judges it."},
    {"R04", "serve builds the engine's environment",
     "LLAMA_ARG_* set with systemctl set-environment, LD_PRELOAD, LD_LIBRARY_PATH, GGML_BACKEND_PATH, "
     "LLAMA_API_KEY or HF_TOKEN change the engine while its argv still equals zealot argv.",
     "The engine reads a flag from every LLAMA_ARG_* variable, ggml and the GPU runtimes read their own, and "
     "the dynamic loader loads other code than the pinned runtime's; the unit's environment comes from the "
     "manager, drop-ins and the endpoint file alike.",
     "serve refuses (78, naming the variable) every variable the engine, ggml, a GPU runtime, the C library's "
     "allocator or the loader reads, passes a short list of names (PATH, HOME, LANG, LC_*, TZ ...) and "
     "CUDA_VISIBLE_DEVICES only as GPU sets it, and leaves every other variable out; audit reports each such "
     "variable in the live process.",
     "Unset the variable (systemctl unset-environment, the drop-in, the shell); set what it did through a key."},
    {"C11", "EXTRA_ARGS carries only flags the engine's own table classifies",
     "A flag no key owns (--swa-full, --cache-ram, --override-kv, --chat-template) changes memory or what a law "
     "judged, and every gate passes.",
     "Of the pinned engine's flags most belong to no key; a flag zealot has not read can change anything.",
     "Every flag of the pinned engine's --help is classified in src/endpoint/flags.tsv (a key owns it, the plan "
     "prices it, it is refused with the law it would break, or it is harmless); a word that is no flag of that "
     "table, or no flag's value, is refused. tests/live/trust.sh regenerates the table from the built "
     "engine and fails on a flag missing or unclassified.",
     "Drop the word, or use the key that owns what it sets."},
    {"M12", "a flag that moves memory is priced or refused",
     "A flag in EXTRA_ARGS makes the engine allocate what the plan never billed (--swa-full, --cache-ram, "
     "--ctx-checkpoints, --no-mmap, --mlock), and the fit gate passed a shape that does not fit.",
     "The plan prices the buffers of the shape the keys describe; a flag outside them moves bytes no term holds.",
     "check, deploy and serve refuse each such flag in EXTRA_ARGS, a config file or LLAMA_ARG_* with this law.",
     "Drop the flag, or ask for the key that would price it."},
};

const char lawdoc_intro[] =
    "Each law was learnt from a failed boot, a silent fallback or a wrong figure in the operators' history of\n"
    "this project. zealot makes each one mechanical: a refusal, a warning, a gate or an exact figure, always\n"
    "cited by its id with one line of reason and one of fix. M laws are the memory budget, S laws the shape\n"
    "and its flags, C laws the configuration and launch, A laws what only a live engine can show.\n"
    "\n"
    "`zealot explain ID` prints one law; `zealot check` cites them.\n";

const char *const lawdoc_field_names[LAWDOC_FIELDS] = {"what breaks", "why", "how zealot checks it", "the fix"};

size_t lawdoc_count(void)
{
	return ARRAY_SIZE(laws);
}

const struct law_doc *lawdoc_at(size_t i)
{
	return i < ARRAY_SIZE(laws) ? &laws[i] : NULL;
}

const struct law_doc *lawdoc_find(const char *id)
{
	for (size_t i = 0; i < ARRAY_SIZE(laws); i++)
		if (strcasecmp(laws[i].id, id) == 0)
			return &laws[i];
	return NULL;
}

const char *lawdoc_nearest(const char *id)
{
	struct near n = near_start(id, 1);
	for (size_t i = 0; i < ARRAY_SIZE(laws); i++)
		near_try(&n, laws[i].id);
	return n.best;
}

const char *lawdoc_field(const struct law_doc *l, int i)
{
	return i == 0 ? l->breaks : i == 1 ? l->why : i == 2 ? l->check : l->fix;
}
