        // Each TLP: its Altera beats (lane mask: lanes that carry the TLP), then its core beats.
        // MRd, 3-DW header, no payload
        alt_beat(1, 1, 0, 4'b0111, 128'h00000000_00001000_0000000f_00000001);
        core_beat(1, 1, 1, 128'h00000000_00001000_0000000f_00000001);
        // MWr, 3-DW header, address 0x1000 (qword aligned): hole after the header
        alt_beat(1, 0, 0, 4'b0111, 128'h00000000_00001000_0100000f_40000001);
        alt_beat(0, 1, 1, 4'b0001, 128'h00000000_00000000_00000000_44332211);
        core_beat(1, 1, 0, 128'h11223344_00001000_0100000f_40000001);
        // MWr, 3-DW header, address 0x1004: payload DW0 in lane 3
        alt_beat(1, 0, 0, 4'b1111, 128'h04030201_00001004_010000ff_40000002);
        alt_beat(0, 1, 1, 4'b0001, 128'h00000000_00000000_00000000_08070605);
        core_beat(1, 0, 0, 128'h01020304_00001004_010000ff_40000002);
        core_beat(0, 1, 3, 128'h00000000_00000000_00000000_05060708);
        // MWr, 4-DW header, address 0x1_0000_0000: no hole
        alt_beat(1, 0, 0, 4'b1111, 128'h00000000_00000001_010000ff_60000004);
        alt_beat(0, 1, 0, 4'b1111, 128'h33333333_22222222_11111111_ddccbbaa);
        core_beat(1, 0, 0, 128'h00000000_00000001_010000ff_60000004);
        core_beat(0, 1, 0, 128'h33333333_22222222_11111111_aabbccdd);
        // MWr, 4-DW header, address 0x1_0000_0004: hole in lane 0 of beat 1
        alt_beat(1, 0, 0, 4'b1111, 128'h00000004_00000001_010000ff_60000003);
        alt_beat(0, 1, 0, 4'b1110, 128'h2d2c2b2a_1d1c1b1a_0d0c0b0a_00000000);
        core_beat(1, 0, 0, 128'h00000004_00000001_010000ff_60000003);
        core_beat(0, 1, 1, 128'h00000000_2a2b2c2d_1a1b1c1d_0a0b0c0d);
        // CplD, lower address 0x00: hole, and the core side needs one beat less
        alt_beat(1, 0, 0, 4'b0111, 128'h00000000_02000a00_01000010_4a000004);
        alt_beat(0, 1, 0, 4'b1111, 128'hcfcecdcc_cbcac9c8_c7c6c5c4_c3c2c1c0);
        core_beat(1, 0, 0, 128'hc0c1c2c3_02000a00_01000010_4a000004);
        core_beat(0, 1, 1, 128'h00000000_cccdcecf_c8c9cacb_c4c5c6c7);
        // CplD, lower address 0x04: one beat
        alt_beat(1, 1, 0, 4'b1111, 128'h66778899_02000b04_01000004_4a000001);
        core_beat(1, 1, 0, 128'h99887766_02000b04_01000004_4a000001);
        // MsgD (vendor-defined, routed by ID), 4-DW header, DW3 bit 2 set: no hole
        alt_beat(1, 0, 0, 4'b1111, 128'h00000004_02001234_0100007f_72000001);
        alt_beat(0, 1, 1, 4'b0001, 128'h00000000_00000000_00000000_0df0feca);
        core_beat(1, 0, 0, 128'h00000004_02001234_0100007f_72000001);
        core_beat(0, 1, 3, 128'h00000000_00000000_00000000_cafef00d);
        // CfgWr0 to register 0x10: hole
        alt_beat(1, 0, 0, 4'b0111, 128'h00000000_01000010_0100000f_44000001);
        alt_beat(0, 1, 1, 4'b0001, 128'h00000000_00000000_00000000_21436587);
        core_beat(1, 1, 0, 128'h87654321_01000010_0100000f_44000001);
        // MWr, 3-DW header, address 0x2000, 16 DWs
        alt_beat(1, 0, 0, 4'b0111, 128'h00000000_00002000_0100ffff_40000010);
        alt_beat(0, 0, 0, 4'b1111, 128'h03030313_02020212_01010111_00000010);
        alt_beat(0, 0, 0, 4'b1111, 128'h07070717_06060616_05050515_04040414);
        alt_beat(0, 0, 0, 4'b1111, 128'h0b0b0b1b_0a0a0a1a_09090919_08080818);
        alt_beat(0, 1, 0, 4'b1111, 128'h0f0f0f1f_0e0e0e1e_0d0d0d1d_0c0c0c1c);
        core_beat(1, 0, 0, 128'h10000000_00002000_0100ffff_40000010);
        core_beat(0, 0, 0, 128'h14040404_13030303_12020202_11010101);
        core_beat(0, 0, 0, 128'h18080808_17070707_16060606_15050505);
        core_beat(0, 0, 0, 128'h1c0c0c0c_1b0b0b0b_1a0a0a0a_19090909);
        core_beat(0, 1, 1, 128'h00000000_1f0f0f0f_1e0e0e0e_1d0d0d0d);
