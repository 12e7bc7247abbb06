// The arm target's measuring side, checked on an x86 machine: the aarch64
// host reading (from /proc/cpuinfo texts of real aarch64 machines), the
// plugin refusing to measure here with the command that can, and the
// cross-built aarch64 ucmoh-measure under qemu-user: every kernel correct
// over 500 sampled schedules per intrinsic (int32 bit-exact, fp32 bit-exact
// as one FMA chain), and no latency ever timed under emulation.
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include "ci_skip.h"
#include "command_runner.h"
#include "ucmoh/arm/arm_host.h"
#include "ucmoh/arm/arm_plugin.h"
#include "ucmoh/arm/graviton2.h"

namespace ucmoh::arm {
namespace {

using ucmoh::testing::RunCommand;

// The first block of /proc/cpuinfo on an AWS c6g (Graviton2) instance.
const char* kGraviton2Cpuinfo =
    "processor\t: 0\n"
    "BogoMIPS\t: 243.75\n"
    "Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm lrcpc dcpop "
    "asimddp ssbs\n"
    "CPU implementer\t: 0x41\n"
    "CPU architecture: 8\n"
    "CPU variant\t: 0x3\n"
    "CPU part\t: 0xd0c\n"
    "CPU revision\t: 1\n"
    "\n"
    "processor\t: 1\n"
    "Features\t: fp\n";

// A Cortex-A72 (Raspberry Pi 4): NEON, no dot product.
const char* kCortexA72Cpuinfo =
    "processor\t: 0\nBogoMIPS\t: 108.00\nFeatures\t: fp asimd evtstrm crc32 cpuid\n"
    "CPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x0\nCPU part\t: 0xd08\nCPU revision\t: 3\n";

const char* kX86Cpuinfo = "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R)\nflags\t\t: fpu avx2\n";

TEST(ArmHost, ReadsTheCoreAndTheIntrinsicFeatures) {
  const ArmCpuinfo info = ParseArmCpuinfo(kGraviton2Cpuinfo);
  EXPECT_EQ(info.implementer, 0x41);
  EXPECT_EQ(info.part, 0xd0c);
  EXPECT_EQ(info.features.size(), 17u);
  EXPECT_EQ(ArmCoreName(info.implementer, info.part), "Arm Neoverse N1");
  EXPECT_EQ(ArmCoreName(0x41, 0xfff), "aarch64 CPU (implementer 0x41, part 0xfff)");

  const HardwareParams graviton = ArmHardwareFrom(kGraviton2Cpuinfo);
  EXPECT_EQ(graviton.model, "Arm Neoverse N1");
  EXPECT_EQ(graviton.flags, (std::vector<std::string>{"asimd", "asimddp"}));
  EXPECT_EQ(graviton.vector_bytes, 16);
  EXPECT_EQ(graviton.vector_registers, 32);
  EXPECT_GE(graviton.cores, 1);
  EXPECT_EQ(ArmHardwareFrom(kCortexA72Cpuinfo).flags, (std::vector<std::string>{"asimd"}));
}

// qemu-user shows an emulated process the real host's /proc/cpuinfo.
TEST(ArmHost, OnlyAnAarch64KernelsCpuinfoIsNative) {
  EXPECT_TRUE(IsNativeArmCpuinfo(kGraviton2Cpuinfo));
  EXPECT_TRUE(IsNativeArmCpuinfo(kCortexA72Cpuinfo));
  EXPECT_FALSE(IsNativeArmCpuinfo(kX86Cpuinfo));
  EXPECT_FALSE(IsNativeArmCpuinfo(""));
  EXPECT_EQ(ArmHardwareFrom(kX86Cpuinfo).model, "emulated aarch64 CPU (not an aarch64 kernel's cpuinfo)");
}

// On this x86 machine the plugin describes a Graviton2 and sends measuring
// to an aarch64 host, naming the command.
TEST(ArmPluginOnX86, RefusesToMeasureAndNamesRemoteMeasurement) {
  const ArmPlugin plugin;
  EXPECT_EQ(plugin.Target().hardware.model, Graviton2Hardware().model);
  const Status can = plugin.CanMeasure("arm.sdot");
  ASSERT_FALSE(can.ok());
  EXPECT_NE(can.message().find("registry measure arm.sdot --host USER@HOST"), std::string::npos) << can.message();
  EXPECT_EQ(plugin.CanMeasure("arm.nope").code(), Status::Code::kNotFound);
}

// The cross-built measurer and qemu-aarch64 with a CPU that has dotprod;
// tools/setup installs both, so only a machine without them skips.
std::string EmulatedMeasurer() {
  const std::string binary = std::string(UCMOH_BINARY_DIR) + "/bin/ucmoh-measure-aarch64";
  if (access(binary.c_str(), X_OK) != 0) return "";
  if (RunCommand("command -v qemu-aarch64").rc != 0) return "";
  return "qemu-aarch64 -cpu max " + binary;
}

class EmulatedKernels : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    measurer_ = EmulatedMeasurer();
    if (measurer_.empty())
      UCMOH_SKIP_OR_FAIL_IN_CI("no build/bin/ucmoh-measure-aarch64 or no qemu-aarch64 (tools/setup installs "
                               "g++-aarch64-linux-gnu and qemu-user)");
  }
  std::string measurer_;
};

TEST_P(EmulatedKernels, FiveHundredSampledSchedulesMatchTheReference) {
  const auto r = RunCommand(measurer_ + " check " + GetParam() + " --schedules 500");
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("check " + GetParam() + " (aarch64, emulated): 500 schedules over 12 shapes, 0 mismatches"),
            std::string::npos)
      << r.out;
}

TEST_P(EmulatedKernels, EmulationIsDetectedAndNeverTimed) {
  auto r = RunCommand(measurer_ + " probe " + GetParam());
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("\"can_measure\":false"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"arch\":\"aarch64\""), std::string::npos) << r.out;
  // A program the plan offers, fed to serve: refused (exit 3), no record.
  const std::string base = std::string(::testing::TempDir()) + "emulated_" + GetParam().substr(4);
  r = RunCommand(measurer_ + " plan " + GetParam() + " --tasks mobilenetv2 --max-tasks 1 --per-task 2 > " + base +
                 ".programs");
  ASSERT_EQ(r.rc, 0) << r.out;
  r = RunCommand("wc -l < " + base + ".programs");
  EXPECT_EQ(r.out, "2\n");
  r = RunCommand("{ " + measurer_ + " serve " + GetParam() + " < " + base + ".programs > " + base + ".records; }");
  EXPECT_EQ(r.rc, 3) << r.out;
  EXPECT_NE(r.out.find("runs under an emulator"), std::string::npos) << r.out;
  EXPECT_EQ(RunCommand("wc -c < " + base + ".records").out, "0\n") << "a record was written under emulation";
}

INSTANTIATE_TEST_SUITE_P(Arm, EmulatedKernels, ::testing::Values("arm.sdot", "arm.neon"),
                         [](const auto& info) { return info.param.substr(4); });

}  // namespace
}  // namespace ucmoh::arm
