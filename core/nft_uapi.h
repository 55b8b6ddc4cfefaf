/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nft_uapi.h - the nf_tables netlink ABI numbers the rule engine reads.
 *
 * These are the values of <linux/netfilter/nf_tables.h>, which the core
 * cannot include (it includes no kernel or libc header). They are ABI and
 * never change; tools/xnft/tests/test_nft_engine.cc checks every one
 * against the installed uAPI header at compile time. No state, no ownership.
 */
#ifndef XBRIDGE_CORE_NFT_UAPI_H
#define XBRIDGE_CORE_NFT_UAPI_H

#include <stdint.h>

namespace xb::nft {

/* Registers: 0 is the verdict, 1..4 are 16-byte, 8..23 are 4-byte views. */
constexpr uint32_t kRegVerdict = 0;
constexpr uint32_t kReg4 = 4;
constexpr uint32_t kReg32_00 = 8;
constexpr uint32_t kReg32_15 = 23;
constexpr unsigned kRegDataWords = 20;	/* u32 words behind the verdict */
constexpr unsigned kDataValueMax = 64;	/* NFT_DATA_VALUE_MAXLEN */

/* Verdicts: netfilter's and nf_tables' own share one number space. */
constexpr int32_t kNfDrop = 0;
constexpr int32_t kNfAccept = 1;
constexpr int32_t kNftContinue = -1;
constexpr int32_t kNftBreak = -2;
constexpr int32_t kNftJump = -3;
constexpr int32_t kNftGoto = -4;
constexpr int32_t kNftReturn = -5;
constexpr unsigned kJumpStackSize = 16;	/* NFT_JUMP_STACK_SIZE */

/* Hooks of the bridge family (NF_BR_*). */
constexpr unsigned kHookPrerouting = 0;
constexpr unsigned kHookInput = 1;
constexpr unsigned kHookForward = 2;
constexpr unsigned kHookOutput = 3;
constexpr unsigned kHookPostrouting = 4;
constexpr unsigned kHookCount = 5;
constexpr uint32_t kFamilyBridge = 7;	/* NFPROTO_BRIDGE */

enum : uint16_t { kListElem = 1 };
enum : uint16_t { kHookHooknum = 1, kHookPriority = 2, kHookDev = 3, kHookDevs = 4 };
enum : uint16_t {
	kTableName = 1, kTableFlags = 2, kTableUse = 3, kTableHandle = 4,
	kTableUserdata = 6, kTableOwner = 7,
};
constexpr uint32_t kTableFDormant = 0x1;
constexpr uint32_t kTableFOwner = 0x2;
enum : uint16_t {
	kChainTable = 1, kChainHandle = 2, kChainName = 3, kChainHook = 4,
	kChainPolicy = 5, kChainUse = 6, kChainType = 7, kChainCounters = 8,
	kChainFlags = 10, kChainId = 11, kChainUserdata = 12,
};
constexpr uint32_t kChainFBase = 0x1;
enum : uint16_t {
	kRuleTable = 1, kRuleChain = 2, kRuleHandle = 3, kRuleExpressions = 4,
	kRuleCompat = 5, kRulePosition = 6, kRuleUserdata = 7, kRuleId = 9,
	kRulePositionId = 10, kRuleChainId = 11,
};
enum : uint16_t {
	kSetTable = 1, kSetName = 2, kSetFlags = 3, kSetKeyType = 4, kSetKeyLen = 5,
	kSetDataType = 6, kSetDataLen = 7, kSetPolicy = 8, kSetDesc = 9, kSetId = 10,
	kSetTimeout = 11, kSetGcInterval = 12, kSetUserdata = 13, kSetObjType = 15,
	kSetHandle = 16, kSetExpr = 17, kSetExpressions = 18,
};
enum : uint16_t { kSetDescSize = 1, kSetDescConcat = 2 };
enum : uint16_t { kSetFieldLen = 1 };
constexpr uint32_t kSetFAnonymous = 0x1;
constexpr uint32_t kSetFConstant = 0x2;
constexpr uint32_t kSetFInterval = 0x4;
constexpr uint32_t kSetFMap = 0x8;
constexpr uint32_t kSetFTimeout = 0x10;
constexpr uint32_t kSetFEval = 0x20;
constexpr uint32_t kSetFObject = 0x40;
constexpr uint32_t kSetFConcat = 0x80;
constexpr uint32_t kSetFExpr = 0x100;
enum : uint16_t {
	kSetElemKey = 1, kSetElemData = 2, kSetElemFlags = 3, kSetElemTimeout = 4,
	kSetElemExpiration = 5, kSetElemUserdata = 6, kSetElemExpr = 7,
	kSetElemObjref = 9, kSetElemKeyEnd = 10, kSetElemExpressions = 11,
};
constexpr uint32_t kSetElemFIntervalEnd = 0x1;
constexpr uint32_t kSetElemFCatchall = 0x2;
enum : uint16_t {
	kSetElemListTable = 1, kSetElemListSet = 2, kSetElemListElements = 3,
	kSetElemListSetId = 4,
};
constexpr uint32_t kDataTypeVerdict = 0xffffff00;
enum : uint16_t { kDataValue = 1, kDataVerdict = 2 };
enum : uint16_t { kVerdictCode = 1, kVerdictChain = 2, kVerdictChainId = 3 };
enum : uint16_t { kExprName = 1, kExprData = 2 };

enum : uint16_t { kImmediateDreg = 1, kImmediateData = 2 };
enum : uint16_t {
	kBitwiseSreg = 1, kBitwiseDreg = 2, kBitwiseLen = 3, kBitwiseMask = 4,
	kBitwiseXor = 5, kBitwiseOp = 6, kBitwiseData = 7,
};
enum : uint32_t { kBitwiseMaskXor = 0, kBitwiseLshift = 1, kBitwiseRshift = 2 };
enum : uint16_t {
	kByteorderSreg = 1, kByteorderDreg = 2, kByteorderOp = 3, kByteorderLen = 4,
	kByteorderSize = 5,
};
enum : uint32_t { kByteorderNtoh = 0, kByteorderHton = 1 };
enum : uint16_t { kCmpSreg = 1, kCmpOp = 2, kCmpData = 3 };
enum : uint32_t { kCmpEq = 0, kCmpNeq, kCmpLt, kCmpLte, kCmpGt, kCmpGte };
enum : uint16_t { kRangeSreg = 1, kRangeOp = 2, kRangeFromData = 3, kRangeToData = 4 };
enum : uint32_t { kRangeEq = 0, kRangeNeq = 1 };
enum : uint16_t {
	kLookupSet = 1, kLookupSreg = 2, kLookupDreg = 3, kLookupSetId = 4, kLookupFlags = 5,
};
constexpr uint32_t kLookupFInv = 0x1;
enum : uint16_t {
	kPayloadDreg = 1, kPayloadBase = 2, kPayloadOffset = 3, kPayloadLen = 4,
	kPayloadSreg = 5, kPayloadCsumType = 6, kPayloadCsumOffset = 7, kPayloadCsumFlags = 8,
};
enum : uint32_t { kPayloadLL = 0, kPayloadNetwork = 1, kPayloadTransport = 2, kPayloadInner = 3 };
enum : uint16_t { kMetaDreg = 1, kMetaKey = 2, kMetaSreg = 3 };
enum : uint32_t {
	kMetaLen = 0, kMetaProtocol = 1, kMetaPriority = 2, kMetaMark = 3, kMetaIif = 4,
	kMetaOif = 5, kMetaIifname = 6, kMetaOifname = 7, kMetaIiftype = 8, kMetaOiftype = 9,
	kMetaSkuid = 10, kMetaSkgid = 11, kMetaNftrace = 12, kMetaRtclassid = 13,
	kMetaNfproto = 15, kMetaL4proto = 16, kMetaBriIifname = 17, kMetaBriOifname = 18,
	kMetaPkttype = 19, kMetaCpu = 20, kMetaIifgroup = 21, kMetaOifgroup = 22,
	kMetaCgroup = 23, kMetaPrandom = 24, kMetaSecpath = 25, kMetaIifkind = 26, kMetaOifkind = 27, kMetaBriIifpvid = 28,
	kMetaBriIifvproto = 29, kMetaTimeNs = 30, kMetaTimeDay = 31, kMetaTimeHour = 32,
	kMetaSdif = 33, kMetaSdifname = 34,
};
enum : uint16_t { kCtDreg = 1, kCtKey = 2, kCtDirection = 3, kCtSreg = 4 };
enum : uint32_t {
	kCtState = 0, kCtDirectionKey = 1, kCtStatus = 2, kCtMark = 3, kCtExpiration = 5,
	kCtL3protocol = 7, kCtProtocol = 10, kCtProtoSrc = 11, kCtProtoDst = 12,
	kCtPkts = 14, kCtBytes = 15, kCtAvgpkt = 16, kCtZone = 17, kCtSrcIp = 19, kCtDstIp = 20,
	kCtSrcIp6 = 21, kCtDstIp6 = 22, kCtId = 23,
};
/* NFTA_LOG_* and nf_log's constants */
enum : uint16_t {
	kLogGroup = 1, kLogPrefix = 2, kLogSnaplen = 3, kLogQthreshold = 4, kLogLevel = 5,
	kLogFlags = 6,
};
constexpr uint32_t kLogLevelWarning = 4;	/* NFT_LOGLEVEL_WARNING: the default */
constexpr uint32_t kLogLevelAudit = 8;		/* NFT_LOGLEVEL_AUDIT */
constexpr uint32_t kLogFlagsMask = 0x2f;	/* NF_LOG_MASK */
constexpr uint8_t kLogTypeLog = 0, kLogTypeUlog = 1;
enum : uint16_t { kCounterBytes = 1, kCounterPackets = 2 };
enum : uint16_t {
	kLimitRate = 1, kLimitUnit = 2, kLimitBurst = 3, kLimitType = 4, kLimitFlags = 5,
};
enum : uint32_t { kLimitPkts = 0, kLimitPktBytes = 1 };
constexpr uint32_t kLimitFInv = 0x1;
/* NFTA_EXTHDR_*, its flags and nft_exthdr_op */
enum : uint16_t {
	kExthdrDreg = 1, kExthdrType = 2, kExthdrOffset = 3, kExthdrLen = 4, kExthdrFlags = 5,
	kExthdrOp = 6, kExthdrSreg = 7,
};
constexpr uint32_t kExthdrFPresent = 0x1;
enum : uint32_t { kExthdrOpIpv6 = 0, kExthdrOpTcpopt = 1, kExthdrOpIpv4 = 2, kExthdrOpSctp = 3 };
/* Insn::sub of a TcpOptWrite (xbridge's own: nf_tables picks the ops). */
enum : uint8_t { kTcpOptSet = 0, kTcpOptStrip = 1 };
/* NFTA_NG_*, nft_ng_types; NFTA_HASH_*, nft_hash_types */
enum : uint16_t { kNgDreg = 1, kNgModulus = 2, kNgType = 3, kNgOffset = 4 };
enum : uint32_t { kNgIncremental = 0, kNgRandom = 1 };
enum : uint16_t {
	kHashSreg = 1, kHashDreg = 2, kHashLen = 3, kHashModulus = 4, kHashSeed = 5,
	kHashOffset = 6, kHashType = 7,
};
enum : uint32_t { kHashJenkins = 0, kHashSym = 1 };
/* NFTA_REJECT_*, nft_reject_types and the ICMPX codes */
enum : uint16_t { kRejectType = 1, kRejectIcmpCode = 2 };
enum : uint32_t { kRejectIcmpUnreach = 0, kRejectTcpRst = 1, kRejectIcmpxUnreach = 2 };
constexpr uint8_t kRejectIcmpxMax = 3;	/* NFT_REJECT_ICMPX_ADMIN_PROHIBITED */
enum : uint16_t { kFlowTableName = 1 };
enum : uint16_t {
	kFlowtableTable = 1, kFlowtableName = 2, kFlowtableHook = 3, kFlowtableUse = 4,
	kFlowtableHandle = 5, kFlowtableFlags = 7,
};
enum : uint16_t { kFlowtableHookNum = 1, kFlowtableHookPriority = 2, kFlowtableHookDevs = 3 };
constexpr uint32_t kFlowtableFHwOffload = 0x1;
constexpr uint32_t kFlowtableFCounter = 0x2;
enum : uint16_t { kDeviceName = 1 };
enum : uint16_t { kGenId = 1, kGenProcPid = 2, kGenProcName = 3 };
enum : uint16_t {
	kObjTable = 1, kObjName = 2, kObjType = 3, kObjData = 4, kObjUse = 5, kObjHandle = 6,
	kObjPad = 7, kObjUserdata = 8,
};
constexpr uint32_t kObjectCounter = 1;	/* NFT_OBJECT_COUNTER */
constexpr uint32_t kObjectQuota = 2;	/* NFT_OBJECT_QUOTA */
constexpr uint32_t kObjectLimit = 4;	/* NFT_OBJECT_LIMIT */
/* NFTA_QUOTA_* and its flags */
enum : uint16_t { kQuotaBytes = 1, kQuotaFlags = 2, kQuotaConsumed = 4 };
constexpr uint32_t kQuotaFInv = 0x1;
constexpr uint32_t kQuotaFDepleted = 0x2;
enum : uint16_t {
	kObjrefImmType = 1, kObjrefImmName = 2, kObjrefSetSreg = 3, kObjrefSetName = 4,
	kObjrefSetId = 5,
};

/* nfnetlink message types of the nf_tables subsystem (NFT_MSG_*). */
enum : uint16_t {
	kMsgNewTable = 0, kMsgGetTable = 1, kMsgDelTable = 2,
	kMsgNewChain = 3, kMsgGetChain = 4, kMsgDelChain = 5,
	kMsgNewRule = 6, kMsgGetRule = 7, kMsgDelRule = 8,
	kMsgNewSet = 9, kMsgGetSet = 10, kMsgDelSet = 11,
	kMsgNewSetElem = 12, kMsgGetSetElem = 13, kMsgDelSetElem = 14,
	kMsgNewGen = 15, kMsgGetGen = 16,
	kMsgNewObj = 18, kMsgGetObj = 19, kMsgDelObj = 20, kMsgGetObjReset = 21,
	kMsgNewFlowtable = 22, kMsgGetFlowtable = 23, kMsgDelFlowtable = 24,
};

/* Netlink request flags the nf_tables commands read. */
constexpr uint16_t kNlmFReplace = 0x100;
constexpr uint16_t kNlmFExcl = 0x200;
constexpr uint16_t kNlmFCreate = 0x400;
constexpr uint16_t kNlmFAppend = 0x800;
constexpr uint16_t kNlmFNonrec = 0x100;	/* on delete requests */
constexpr uint16_t kNlmFEcho = 0x8;	/* the requester gets the notifications */

constexpr unsigned kNameMax = 256;	/* NFT_NAME_MAXLEN, with the NUL */
constexpr unsigned kIfnameSize = 16;	/* IFNAMSIZ */

} // namespace xb::nft

#endif /* XBRIDGE_CORE_NFT_UAPI_H */
