// The dispatch plan (core/npu/dispatch_plan.h) and the NPU backend following it: which fused
// kernel of a bundle serves which projection, the host's slicing, SwiGLU in the GEMM's epilogue
// (prompt) and on the host (token), down's K slices summed, the head's row blocks — on the
// committed tiny-a bundle and on a checkpoint with the released models' head geometry
// (attention head_dim 256; DeltaNet 16 key / 32 value heads of 128), hidden sizes shrunk.
// Expected columns come from the configs' sizes by the taconite runtime's formulas (model.rs
// n_lin = 2·lin_k_heads·lin_hk + 2·lin_heads·lin_hv, n_att = (2·heads + 2·kv_heads)·hd), and
// every value from the plain scalar references of emulate_gemm.h.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <set>

#include "core/model/config.h"
#include "core/model/safetensors.h"
#include "core/model/safetensors_writer.h"
#include "core/npu/dispatch_plan.h"
#include "core/npu/npu_bundle.h"
#include "kernels/cpu/activations.h"
#include "kernels/cpu/thread_pool.h"
#include "kernels/npu/emulate_gemm.h"
#include "kernels/npu/npu_backend.h"
#include "tests/npu/npu_test_data.h"

namespace glance::npu {
namespace {

namespace fs = std::filesystem;
using kernels::npu::Combine;
using kernels::npu::Epilogue;
using kernels::npu::FusedPlan;
using kernels::npu::FusedProjection;
const std::string kTiny = std::string(GLANCE_TEST_DATA) + "/tiny-a";
const std::string kFixture = std::string(GLANCE_TEST_DATA) + "/npu-bundle-tiny-a";
const std::string kLm = "model.language_model.layers.";

const FusedProjection* ProjectionOf(const FusedPlan& plan, const std::string& checkpoint) {
  for (const auto& p : plan.projections)
    for (const auto& s : p.slices)
      if (s.checkpoint == checkpoint) return &p;
  return nullptr;
}

struct Geometry {
  int64_t hidden, inter, vocab;
  int64_t heads, kv_heads, hd;           // attention
  int64_t lin_k_heads, lin_heads, lin_hk, lin_hv;  // DeltaNet
  std::vector<std::string> types;        // "lin" / "att"
};

// Checks the plan of a checkpoint with geometry g against taconite's formulas.
void ExpectPlanFollowsTheRuntime(const FusedPlan& plan, const Geometry& g, int64_t head_rows) {
  const int64_t lin_key = g.lin_k_heads * g.lin_hk, lin_value = g.lin_heads * g.lin_hv;
  const int64_t lin_conv = 2 * lin_key + lin_value, n_lin = lin_conv + lin_value;
  const int64_t n_att = (2 * g.heads + 2 * g.kv_heads) * g.hd;
  std::set<std::string> host;
  for (const auto& h : plan.host_f32) host.insert(h);
  for (size_t i = 0; i < g.types.size(); ++i) {
    std::string l = kLm, t = "l";  // built in steps: GCC 12 warns falsely (-Wrestrict) on "l" + string
    l += std::to_string(i) + ".";
    t += std::to_string(i);
    t += ".g.";
    if (g.types[i] == "lin") {
      const FusedProjection* p = ProjectionOf(plan, l + "linear_attn.in_proj_qkv.weight");
      ASSERT_TRUE(p) << i;
      EXPECT_EQ(p->tensors, std::vector<std::string>{t + "in"});
      EXPECT_EQ(p->gemm_key, "lin");
      EXPECT_EQ(p->gemv_key, "lin");
      EXPECT_EQ(p->combine, Combine::kSlices);
      ASSERT_EQ(p->slices.size(), 2u);
      EXPECT_EQ(p->slices[0].begin, 0);                 // q|k|v, the conv's channels
      EXPECT_EQ(p->slices[0].end, lin_conv);
      EXPECT_EQ(p->slices[1].checkpoint, l + "linear_attn.in_proj_z.weight");
      EXPECT_EQ(p->slices[1].begin, lin_conv);          // z
      EXPECT_EQ(p->slices[1].end, n_lin);
      EXPECT_EQ(p->in_cols, g.hidden);
      // b and a: on the host in f32, in no kernel.
      EXPECT_TRUE(host.count(l + "linear_attn.in_proj_b.weight")) << i;
      EXPECT_TRUE(host.count(l + "linear_attn.in_proj_a.weight")) << i;
      EXPECT_FALSE(ProjectionOf(plan, l + "linear_attn.in_proj_b.weight"));
      const FusedProjection* o = ProjectionOf(plan, l + "linear_attn.out_proj.weight");
      ASSERT_TRUE(o);
      EXPECT_EQ(o->gemm_key, "o");
      EXPECT_EQ(o->in_cols, lin_value);
    } else {
      const FusedProjection* p = ProjectionOf(plan, l + "self_attn.q_proj.weight");
      ASSERT_TRUE(p) << i;
      EXPECT_EQ(p->gemm_key, "att");
      ASSERT_EQ(p->slices.size(), 3u);
      EXPECT_EQ(p->slices[0].end, 2 * g.heads * g.hd);  // (q | gate) per head
      EXPECT_EQ(p->slices[1].checkpoint, l + "self_attn.k_proj.weight");
      EXPECT_EQ(p->slices[1].end - p->slices[1].begin, g.kv_heads * g.hd);
      EXPECT_EQ(p->slices[2].checkpoint, l + "self_attn.v_proj.weight");
      EXPECT_EQ(p->slices[2].end, n_att);
      EXPECT_EQ(ProjectionOf(plan, l + "self_attn.o_proj.weight")->in_cols, g.heads * g.hd);
    }
    const FusedProjection* gu = ProjectionOf(plan, l + "mlp.gate_proj.weight");
    ASSERT_TRUE(gu);
    EXPECT_EQ(gu, ProjectionOf(plan, l + "mlp.up_proj.weight"));  // one kernel for both
    EXPECT_EQ(gu->combine, Combine::kSwiGlu);
    EXPECT_EQ(gu->prefill_epilogue, Epilogue::kSwiGluPairs);
    EXPECT_EQ(gu->gemm_key, "gu");
    EXPECT_EQ(gu->out_cols, g.inter);
    const FusedProjection* down = ProjectionOf(plan, l + "mlp.down_proj.weight");
    ASSERT_TRUE(down);
    EXPECT_EQ(down->combine, Combine::kSumKSlices);
    const int64_t n_down = (g.inter + g.hidden - 1) / g.hidden;
    ASSERT_EQ(static_cast<int64_t>(down->tensors.size()), n_down);
    for (int64_t j = 0; j < n_down; ++j) EXPECT_EQ(down->tensors[static_cast<size_t>(j)], t + "down" + std::to_string(j));
    EXPECT_EQ(down->k_slice, g.hidden);
    EXPECT_EQ(down->in_cols, g.inter);
  }
  const FusedProjection* head = nullptr;
  for (const auto& p : plan.projections)
    if (p.combine == Combine::kRowBlocks) head = &p;
  ASSERT_TRUE(head);
  EXPECT_TRUE(head->gemm_key.empty());  // a real bundle's head is GEMVs only
  EXPECT_EQ(head->gemv_key, "head");
  EXPECT_EQ(head->out_cols, g.vocab);
  EXPECT_EQ(static_cast<int64_t>(head->tensors.size()), (g.vocab + head_rows - 1) / head_rows);
}

TEST(NpuDispatchPlan, TinyABundleFollowsTheRuntimeAndItsKernelRecords) {
  const TensorStore store = TensorStore::OpenFolder(kTiny);
  auto bundle = std::make_shared<const NpuBundle>(NpuBundle::Open(kFixture));
  const BundleWeightSource source(bundle, store);
  const FusedPlan plan = PlanDispatch(source.plan());
  const TextConfig t = ModelConfig::FromFile(kTiny + "/config.json").text;
  Geometry g{t.hidden_size, t.intermediate_size, t.vocab_size, t.num_attention_heads, t.num_key_value_heads,
             t.head_dim, t.linear_num_key_heads, t.linear_num_value_heads, t.linear_key_head_dim,
             t.linear_value_head_dim, {}};
  for (const auto& type : t.layer_types) g.types.push_back(type == LayerType::kLinearAttention ? "lin" : "att");
  ExpectPlanFollowsTheRuntime(plan, g, source.plan().head_rows);
  // Every prefill kernel the plan names has a gemm record in the bundle, and every bundle
  // tensor it dispatches is in tensors.txt.
  std::set<std::string> gemm_records;
  for (const auto& k : bundle->kernels())
    if (k.spec.family == kernels::npu::KernelFamily::kGemm) gemm_records.insert(k.key);
  for (const auto& p : plan.projections) {
    if (p.gemm_key.rfind("vision.", 0) != 0 && !p.gemm_key.empty()) {
      EXPECT_TRUE(gemm_records.count(p.gemm_key)) << p.gemm_key;
    }
    for (const auto& tensor : p.tensors) EXPECT_TRUE(bundle->tensors().count(tensor)) << tensor;
  }
}

// A checkpoint with the released models' head geometry, hidden sizes shrunk: layers lin, att.
struct RealGeometry {
  Geometry g{128, 320, 1000, 8, 2, 256, 16, 32, 128, 128, {"lin", "att"}};
  fs::path dir;
  RealGeometry() {
    dir = fs::temp_directory_path() / ("glance_npu_dispatch_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    std::vector<TensorBytes> tensors;
    uint32_t seed = 10;
    auto add = [&](const std::string& name, int64_t rows, int64_t cols) {
      const auto v = kernels::npu::test_data::RandomNormal(static_cast<size_t>(rows * cols), seed++, 0.05f);
      TensorBytes t;
      t.spec.name = name;
      t.spec.dtype = DType::F32;
      t.spec.shape = {rows, cols};
      t.bytes.resize(v.size() * 4);
      std::memcpy(t.bytes.data(), v.data(), t.bytes.size());
      tensors.push_back(std::move(t));
    };
    const int64_t D = g.hidden, lk = g.lin_k_heads * g.lin_hk, lv = g.lin_heads * g.lin_hv;
    const std::string l0 = kLm + "0.", l1 = kLm + "1.";
    add(l0 + "linear_attn.in_proj_qkv.weight", 2 * lk + lv, D);
    add(l0 + "linear_attn.in_proj_z.weight", lv, D);
    add(l0 + "linear_attn.in_proj_b.weight", g.lin_heads, D);
    add(l0 + "linear_attn.in_proj_a.weight", g.lin_heads, D);
    add(l0 + "linear_attn.out_proj.weight", D, lv);
    add(l1 + "self_attn.q_proj.weight", 2 * g.heads * g.hd, D);
    add(l1 + "self_attn.k_proj.weight", g.kv_heads * g.hd, D);
    add(l1 + "self_attn.v_proj.weight", g.kv_heads * g.hd, D);
    add(l1 + "self_attn.o_proj.weight", D, g.heads * g.hd);
    for (const std::string& l : {l0, l1}) {
      add(l + "mlp.gate_proj.weight", g.inter, D);
      add(l + "mlp.up_proj.weight", g.inter, D);
      add(l + "mlp.down_proj.weight", D, g.inter);
    }
    add("model.language_model.embed_tokens.weight", g.vocab, D);  // tied head
    WriteSafetensorsFile((dir / "model.safetensors").string(), tensors);
  }
  ~RealGeometry() { fs::remove_all(dir); }
};

TEST(NpuDispatchPlan, RealHeadGeometryFollowsTheRuntime) {
  RealGeometry m;
  const TensorStore store = TensorStore::OpenFolder(m.dir.string());
  const BundlePlan bundle = PlanBundle(store);
  ExpectPlanFollowsTheRuntime(PlanDispatch(bundle), m.g, bundle.head_rows);
}

// The plain reference of one checkpoint projection: ReferenceBfpMatmul over its f32 weight.
std::vector<float> Reference(const TensorStore& store, const std::string& name, const std::vector<float>& x,
                             int64_t rows, int64_t col0 = 0, int64_t cols = -1) {
  const TensorView& v = store.Get(name);
  const std::vector<float> w = v.ToF32();
  const int64_t n = v.shape[0], k = v.shape[1];
  if (cols < 0) cols = k;
  std::vector<float> ws(static_cast<size_t>(n * cols)), xs(static_cast<size_t>(rows * cols)), y(static_cast<size_t>(rows * n));
  for (int64_t r = 0; r < n; ++r) std::copy_n(w.data() + r * k + col0, cols, ws.data() + r * cols);
  for (int64_t r = 0; r < rows; ++r) std::copy_n(x.data() + r * k + col0, cols, xs.data() + r * cols);
  kernels::npu::ReferenceBfpMatmul(xs.data(), rows, ws.data(), n, cols, kernels::npu::Rounding::kConvEven, y.data());
  return y;
}

kernels::WeightRef RefOf(const TensorStore& store, const std::string& name) {
  const TensorView& v = store.Get(name);
  kernels::WeightRef r;
  r.type = kernels::WeightType::F32;
  r.data = v.data;
  r.rows = v.shape[0];
  r.cols = v.shape[1];
  return r;
}

TEST(NpuDispatch, EveryFusedKernelEqualsItsReferenceInPromptAndToken) {
  RealGeometry m;
  const TensorStore store = TensorStore::OpenFolder(m.dir.string());
  auto source = std::make_unique<CheckpointTensorSource>(store, kernels::npu::Rounding::kConvEven);
  FusedPlan plan = PlanDispatch(source->plan());
  std::unordered_map<const void*, std::string> names;
  for (const auto& [name, view] : store.all()) names[view->data] = name;
  kernels::npu::NpuBackend be(kernels::npu::MakeEmulatorDevice(2), std::move(source), plan, names);
  be.set_log_dispatches(true);
  kernels::ThreadPool pool(2);
  const kernels::Compute cx{&be, &pool};
  const std::string l0 = kLm + "0.", l1 = kLm + "1.";
  const int64_t D = m.g.hidden, I = m.g.inter;
  for (const int64_t rows : {int64_t{1}, int64_t{300}}) {
    SCOPED_TRACE("rows " + std::to_string(rows));
    const size_t logged = be.DispatchLog().size();
    const std::string n = std::to_string((rows + 255) / 256);
    const auto x = kernels::npu::test_data::RandomNormal(static_cast<size_t>(rows * D), 7, 1.0f);
    // q|k|v|z in one dispatch; b, a left to the CPU in f32.
    const auto qkv_ref = RefOf(store, l0 + "linear_attn.in_proj_qkv.weight"), z_ref = RefOf(store, l0 + "linear_attn.in_proj_z.weight");
    const auto b_ref = RefOf(store, l0 + "linear_attn.in_proj_b.weight"), a_ref = RefOf(store, l0 + "linear_attn.in_proj_a.weight");
    std::vector<float> qkv(static_cast<size_t>(rows * qkv_ref.rows)), z(static_cast<size_t>(rows * z_ref.rows));
    std::vector<float> b(static_cast<size_t>(rows * b_ref.rows)), a(b.size()), b_cpu(b.size());
    cx.ProjectShared(x.data(), rows, {{&qkv_ref, nullptr, qkv.data()}, {&z_ref, nullptr, z.data()},
                                      {&b_ref, nullptr, b.data()}, {&a_ref, nullptr, a.data()}});
    EXPECT_EQ(qkv, Reference(store, l0 + "linear_attn.in_proj_qkv.weight", x, rows));
    EXPECT_EQ(z, Reference(store, l0 + "linear_attn.in_proj_z.weight", x, rows));
    kernels::Matmul(x.data(), rows, b_ref, nullptr, b_cpu.data(), nullptr);
    EXPECT_EQ(b, b_cpu);  // f32 on the host, bit for bit
    // (q|gate)|k|v of the attention layer.
    const auto q_ref = RefOf(store, l1 + "self_attn.q_proj.weight"), k_ref = RefOf(store, l1 + "self_attn.k_proj.weight"),
               v_ref = RefOf(store, l1 + "self_attn.v_proj.weight");
    std::vector<float> q(static_cast<size_t>(rows * q_ref.rows)), k(static_cast<size_t>(rows * k_ref.rows)), v(k.size());
    cx.ProjectShared(x.data(), rows, {{&q_ref, nullptr, q.data()}, {&k_ref, nullptr, k.data()}, {&v_ref, nullptr, v.data()}});
    EXPECT_EQ(q, Reference(store, l1 + "self_attn.q_proj.weight", x, rows));
    EXPECT_EQ(v, Reference(store, l1 + "self_attn.v_proj.weight", x, rows));
    // SwiGLU: the paired epilogue (prompt) rounds silu(gate)·up once; the token's GEMV returns
    // gate and up rounded, the host multiplies.
    std::vector<float> act(static_cast<size_t>(rows * I));
    cx.SwiGlu(x.data(), rows, RefOf(store, l0 + "mlp.gate_proj.weight"), RefOf(store, l0 + "mlp.up_proj.weight"), act.data());
    const auto g = Reference(store, l0 + "mlp.gate_proj.weight", x, rows), u = Reference(store, l0 + "mlp.up_proj.weight", x, rows);
    std::vector<float> want(act.size());
    if (rows == 1) {
      for (size_t i = 0; i < want.size(); ++i) want[i] = kernels::Silu(g[i]) * u[i];
    } else {
      // The fused B the exporter writes (32 gate | 32 up per 64, I padded to 32), its reference.
      const int64_t Ip = (I + 31) / 32 * 32;
      const auto gw = store.Get(l0 + "mlp.gate_proj.weight").ToF32(), uw = store.Get(l0 + "mlp.up_proj.weight").ToF32();
      std::vector<float> w(static_cast<size_t>(2 * Ip * D), 0.0f), y(static_cast<size_t>(rows * Ip));
      for (int64_t r = 0; r < I; ++r) {
        std::copy_n(gw.data() + r * D, D, w.data() + (64 * (r / 32) + r % 32) * D);
        std::copy_n(uw.data() + r * D, D, w.data() + (64 * (r / 32) + 32 + r % 32) * D);
      }
      kernels::npu::ReferenceBfpSwiGlu(x.data(), rows, w.data(), 2 * Ip, D, kernels::npu::Rounding::kConvEven, y.data());
      for (int64_t t = 0; t < rows; ++t) std::copy_n(y.data() + t * Ip, I, want.data() + t * I);
      // Negative control: the host's product of rounded gate and up is not what the epilogue stores.
      std::vector<float> host(act.size());
      for (size_t i = 0; i < host.size(); ++i) host[i] = kernels::Silu(g[i]) * u[i];
      EXPECT_NE(act, host);
    }
    EXPECT_EQ(act, want);
    // down: ⌈I / D⌉ K slices, summed on the host in slice order.
    const auto h = kernels::npu::test_data::RandomNormal(static_cast<size_t>(rows * I), 8, 1.0f);
    std::vector<float> down(static_cast<size_t>(rows * D)), down_want(down.size(), 0.0f);
    cx.Project(h.data(), rows, RefOf(store, l0 + "mlp.down_proj.weight"), nullptr, down.data());
    for (int64_t j = 0; j * D < I; ++j) {
      const auto part = Reference(store, l0 + "mlp.down_proj.weight", h, rows, j * D, std::min(D, I - j * D));
      for (size_t i = 0; i < down_want.size(); ++i) down_want[i] += part[i];
    }
    EXPECT_EQ(down, down_want);
    // The dispatches, one per projection (down: one per slice), keyed as the bundle's records.
    const auto log = be.DispatchLog();
    const std::vector<std::string> expect =
        rows == 1 ? std::vector<std::string>{"gemv.lin", "gemv.att", "gemv.gu", "gemv.down", "gemv.down", "gemv.down"}
                  : std::vector<std::string>{"gemm.lin.x" + n, "gemm.att.x" + n, "gemm.gu.x" + n, "gemm.down.x" + n,
                                             "gemm.down.x" + n, "gemm.down.x" + n};
    EXPECT_EQ(std::vector<std::string>(log.begin() + static_cast<long>(logged), log.end()), expect);
  }
  // The head: GEMVs of head_rows, one a row, in a prompt too; the vocabulary cut from the last.
  const auto hx = kernels::npu::test_data::RandomNormal(static_cast<size_t>(2 * D), 9, 1.0f);
  std::vector<float> logits(static_cast<size_t>(2 * m.g.vocab));
  const size_t before = be.DispatchLog().size();
  cx.Project(hx.data(), 2, RefOf(store, "model.language_model.embed_tokens.weight"), nullptr, logits.data());
  EXPECT_EQ(logits, Reference(store, "model.language_model.embed_tokens.weight", hx, 2));
  EXPECT_EQ(be.DispatchLog().size() - before, 2u);  // head_rows = vocab here: one block a row
  bool fallback = false, host = false;
  for (const auto& s : be.Stats()) {
    fallback |= s.name == "cpu:fallback";
    host |= s.name == "host:f32" && s.calls == 4;  // b and a, two row counts
  }
  EXPECT_FALSE(fallback);
  EXPECT_TRUE(host);
}

}  // namespace
}  // namespace glance::npu
