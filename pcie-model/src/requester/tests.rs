use super::*;
use crate::completion::{build_completions, error_completion, CompletionRules};

const ME: Bdf = Bdf(0x0000);
const DEV: Bdf = Bdf(0x0100);

fn limits(tags: u16) -> RequesterLimits {
    RequesterLimits {
        tags,
        max_read_request: MaxReadRequestSize::B4096,
        max_payload: MaxPayloadSize::B256,
        completer_rcb: Some(Rcb::B128),
        completion_timeout: Cycles(1000),
    }
}

fn answer(req: &Tlp) -> Vec<Tlp> {
    let rules = CompletionRules::new(Rcb::B128, MaxPayloadSize::B256);
    build_completions(req, DEV, &rules, |a, buf| {
        for (i, b) in buf.iter_mut().enumerate() {
            *b = (a + i as u64) as u8;
        }
    })
    .unwrap()
}

#[test]
fn read_completes_with_the_bytes_in_split_completions() {
    let mut r = Requester::new(ME, limits(32)).unwrap();
    let (h, mrd) = r.mem_read(Cycles(0), 0x2_0000_0010, 1000).unwrap();
    assert_eq!(mrd.requester_id(), ME);
    let cpls = answer(&mrd);
    // 0x10..0x3f8: up to 0x100, two full 256 B, then 0x300..0x3f8.
    let sizes: Vec<usize> = cpls.iter().map(|c| c.payload_len()).collect();
    assert_eq!(sizes, vec![240, 256, 256, 248]);
    for c in &cpls[..3] {
        assert_eq!(r.on_completion(c), Ok(None));
        assert_eq!(r.take_result(h), None);
    }
    assert_eq!(r.on_completion(&cpls[3]), Ok(Some(h)));
    let expect: Vec<u8> = (0..1000u64).map(|i| (0x10 + i) as u8).collect();
    assert_eq!(r.take_result(h), Some(Ok(RequestOutcome::Read(expect))));
    assert_eq!(r.take_result(h), None);
    assert_eq!(r.outstanding(), 0);
}

#[test]
fn tags_run_out_and_come_back() {
    let mut r = Requester::new(ME, limits(2)).unwrap();
    let (_, a) = r.mem_read(Cycles(0), 0x1000, 4).unwrap();
    let (_, b) = r.mem_read(Cycles(0), 0x2000, 4).unwrap();
    assert_ne!(a.tag(), b.tag());
    assert_eq!(
        r.mem_read(Cycles(0), 0x3000, 4).unwrap_err(),
        IssueError::NoFreeTag(2)
    );
    r.on_completion(&answer(&a)[0]).unwrap();
    let (_, c) = r.mem_read(Cycles(0), 0x3000, 4).unwrap();
    assert_eq!(c.tag(), a.tag());
    assert!(Requester::new(ME, limits(0)).is_err());
    assert!(Requester::new(ME, limits(257)).is_err());
}

#[test]
fn error_statuses_and_timeouts() {
    let mut r = Requester::new(ME, limits(8)).unwrap();
    let (h1, a) = r.mem_read(Cycles(0), 0x1000, 64).unwrap();
    let (h2, b) = r.config_read(Cycles(0), DEV, 0).unwrap();
    let (h3, _) = r.mem_read(Cycles(500), 0x2000, 64).unwrap();
    r.on_completion(&error_completion(&a, DEV, CplStatus::Ur).unwrap())
        .unwrap();
    r.on_completion(&error_completion(&b, DEV, CplStatus::Crs).unwrap())
        .unwrap();
    assert_eq!(
        r.take_result(h1),
        Some(Err(RequestError::UnsupportedRequest))
    );
    assert_eq!(r.take_result(h2), Some(Err(RequestError::ConfigRetry)));
    assert!(r.expire(Cycles(1499)).is_empty());
    assert_eq!(r.expire(Cycles(1500)), vec![h3]);
    assert_eq!(r.take_result(h3), Some(Err(RequestError::Timeout)));
}

#[test]
fn config_reads_and_writes() {
    let mut r = Requester::new(ME, limits(8)).unwrap();
    let (h, rd) = r.config_read(Cycles(0), DEV, 4).unwrap();
    assert_eq!(rd.kind().to_string(), "CfgRd0");
    let cpl = Tlp::completion(
        DEV,
        CplStatus::Sc,
        ME,
        rd.tag(),
        4,
        0,
        &0xfe00_000cu32.to_le_bytes(),
    )
    .unwrap();
    r.on_completion(&cpl).unwrap();
    assert_eq!(
        r.take_result(h),
        Some(Ok(RequestOutcome::ConfigRead(0xfe00_000c)))
    );
    let (h, wr) = r.config_write(Cycles(0), DEV, 1, 6, 0x1).unwrap();
    assert_eq!(wr.data(), &[6, 0, 0, 0]);
    let cpl = Tlp::completion(DEV, CplStatus::Sc, ME, wr.tag(), 4, 0, &[]).unwrap();
    r.on_completion(&cpl).unwrap();
    assert_eq!(r.take_result(h), Some(Ok(RequestOutcome::ConfigWritten)));
}

#[test]
fn unexpected_and_malformed_completions() {
    let mut r = Requester::new(ME, limits(8)).unwrap();
    let stray = Tlp::completion(DEV, CplStatus::Sc, ME, Tag(5), 4, 0, &[0; 4]).unwrap();
    assert_eq!(
        r.on_completion(&stray),
        Err(UnexpectedCompletion::UnknownTag(Tag(5)))
    );
    let other = Tlp::completion(DEV, CplStatus::Sc, DEV, Tag(0), 4, 0, &[0; 4]).unwrap();
    assert_eq!(
        r.on_completion(&other),
        Err(UnexpectedCompletion::OtherRequester(DEV))
    );
    let (h, mrd) = r.mem_read(Cycles(0), 0x1000, 64).unwrap();
    assert!(matches!(
        r.on_completion(&mrd),
        Err(UnexpectedCompletion::NotACompletion(_))
    ));
    // Byte count 60 for a 64-byte read.
    let bad = Tlp::completion(DEV, CplStatus::Sc, ME, mrd.tag(), 60, 0, &[0; 64]).unwrap();
    assert_eq!(r.on_completion(&bad), Ok(Some(h)));
    assert_eq!(
        r.take_result(h),
        Some(Err(RequestError::Malformed(CompletionError::ByteCount {
            expected: 64,
            got: 60
        })))
    );
}

#[test]
fn request_rules_are_enforced() {
    let mut l = limits(8);
    l.max_read_request = MaxReadRequestSize::B512;
    let mut r = Requester::new(ME, l).unwrap();
    assert_eq!(
        r.mem_read(Cycles(0), 0x1000, 513).unwrap_err(),
        IssueError::ExceedsMaxReadRequest { len: 513, max: 512 }
    );
    assert!(matches!(
        r.mem_read(Cycles(0), 0x1f00, 512),
        Err(IssueError::Rule(CompletionError::Crosses4K { .. }))
    ));
    assert!(r.mem_read(Cycles(0), u64::MAX - 1, 4).is_err());
    assert_eq!(r.outstanding(), 0);
}

#[test]
fn writes_split_at_mps_and_4k() {
    let r = Requester::new(ME, limits(8)).unwrap();
    let data: Vec<u8> = (0..600u32).map(|i| i as u8).collect();
    let tlps = r.mem_write(0xff0, &data).unwrap();
    let shape: Vec<(u64, usize)> = tlps
        .iter()
        .map(|t| (t.address().unwrap().0, t.payload_len()))
        .collect();
    // 16 B up to 4 KiB, then 256 B MPS-aligned pieces, then the 72 B rest.
    assert_eq!(
        shape,
        vec![(0xff0, 16), (0x1000, 256), (0x1100, 256), (0x1200, 72)]
    );
    assert_eq!(tlps[1].data()[0], 16);
}
