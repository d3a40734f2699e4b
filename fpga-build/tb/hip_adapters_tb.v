// Self-checking testbench of the hard IP adapters (Icarus: iverilog -g2012).
//
// 1. Known answers, RX: TLPs in Altera's 128-bit Avalon-ST layout (holes and
//    unused lanes filled with junk) go through hip_rx_adapter and must come out
//    exactly as the core format (pcie_model::beats; the core-side beats below are
//    what `peach2 tlp beats` prints for the same TLPs).
// 2. Known answers, TX: the core-format beats go through hip_tx_adapter, with
//    pauses inside TLPs, and must come out in Altera's layout (holes and unused
//    lanes zero).
// 3. Round trip: random TLPs (every header kind, lengths 1-128 DWs, both values
//    of address bit 2) through hip_tx_adapter and back through hip_rx_adapter.
//
// Throughout, the hard IP models check the interface rules: TX valid only in a
// ready cycle (READY_LATENCY after tx_st_ready0), no idle ready cycle inside a TX
// TLP; the RX model keeps sending for 3 cycles after rx_st_ready0 falls, and the
// skid FIFO must never overflow. Any mismatch ends the run with $fatal.
`timescale 1ns / 1ps
module hip_adapters_tb;
    localparam MAX_BEATS = 8192;
    localparam TX_READY_LATENCY = 2;
    localparam RX_READY_LATENCY = 3;

    reg clk = 1'b0;
    always #2 clk = ~clk;
    reg rst = 1'b1;
    integer seed = 32'h9e3779b9;
    integer cycle = 0;
    always @(posedge clk) cycle <= cycle + 1;

    // Beat records. Altera: {sop, eop, empty, lane mask[3:0], data}; core: {sop, eop, empty[1:0], data}.
    reg [134:0] alt_in  [0:MAX_BEATS-1];
    reg [134:0] alt_exp [0:MAX_BEATS-1];
    reg [134:0] alt_got [0:MAX_BEATS-1];
    reg [131:0] core_in [0:MAX_BEATS-1];
    reg [131:0] core_exp[0:MAX_BEATS-1];
    integer alt_n = 0, core_n = 0;

    // ---------------------------------------------------------------- RX adapter
    reg  [127:0] rx_st_data = 128'd0;
    reg          rx_st_valid = 1'b0;
    reg          rx_st_sop = 1'b0;
    reg          rx_st_eop = 1'b0;
    wire         rx_st_ready;
    wire [127:0] rx_data;
    wire         rx_valid, rx_sop, rx_eop;
    wire [1:0]   rx_empty;
    reg          rx_ready = 1'b0;

    hip_rx_adapter #(.READY_LATENCY(RX_READY_LATENCY)) rx_dut (
        .clk(clk), .rst(rst),
        .rx_st_data(rx_st_data), .rx_st_valid(rx_st_valid), .rx_st_ready(rx_st_ready),
        .rx_st_sop(rx_st_sop), .rx_st_eop(rx_st_eop),
        .rx_data(rx_data), .rx_valid(rx_valid), .rx_ready(rx_ready),
        .rx_sop(rx_sop), .rx_eop(rx_eop), .rx_empty(rx_empty)
    );

    // ---------------------------------------------------------------- TX adapter
    reg  [127:0] tx_data = 128'd0;
    reg          tx_valid = 1'b0;
    reg          tx_sop = 1'b0;
    reg          tx_eop = 1'b0;
    reg  [1:0]   tx_empty = 2'd0;
    wire         tx_ready;
    wire [127:0] tx_st_data;
    wire         tx_st_valid, tx_st_sop, tx_st_eop, tx_st_empty;
    reg          tx_st_ready = 1'b0;

    hip_tx_adapter #(.READY_LATENCY(TX_READY_LATENCY)) tx_dut (
        .clk(clk), .rst(rst),
        .tx_data(tx_data), .tx_valid(tx_valid), .tx_ready(tx_ready),
        .tx_sop(tx_sop), .tx_eop(tx_eop), .tx_empty(tx_empty),
        .tx_st_data(tx_st_data), .tx_st_valid(tx_st_valid), .tx_st_ready(tx_st_ready),
        .tx_st_sop(tx_st_sop), .tx_st_eop(tx_st_eop), .tx_st_empty(tx_st_empty)
    );

    // ------------------------------------------------------------ stimulus models
    // Activity in percent, per model; phase code sets them.
    integer rx_src_busy = 100, rx_sink_busy = 100, tx_src_busy = 100, tx_sink_busy = 100;
    integer alt_feed = 0, alt_feed_n = 0;     // RX source: next beat of alt_in
    integer core_seen = 0, core_seen_n = 0;   // RX sink: next expected core_exp
    integer core_feed = 0, core_feed_n = 0;   // TX source: next beat of core_in
    integer alt_seen = 0, alt_seen_n = 0;     // TX sink: beats captured, beats expected
    integer alt_check = 0;                    // TX sink: compare with alt_exp

    function [31:0] junk(input integer i);
        junk = 32'hbad00000 + i;
    endfunction

    function [127:0] with_junk(input [134:0] b, input integer i);
        integer k;
        begin
            with_junk = b[127:0];
            for (k = 0; k < 4; k = k + 1)
                if (!b[128 + k]) with_junk[32*k +: 32] = junk(i * 4 + k);
        end
    endfunction

    // RX source: may send while rx_st_ready was high in any of the last 3 cycles.
    reg [RX_READY_LATENCY-2:0] rx_ready_hist = 0;
    integer rx_stalls = 0;   // cycles rx_st_ready was low with beats left to send
    always @(posedge clk) begin
        rx_ready_hist <= {rx_ready_hist, rx_st_ready};
        if (rst) begin
            rx_st_valid <= 1'b0;
        end else begin
            if (!rx_st_ready && alt_feed < alt_feed_n) rx_stalls = rx_stalls + 1;
            if (rx_st_valid) alt_feed = alt_feed + 1;
            if ((rx_st_ready || rx_ready_hist != 0) && alt_feed < alt_feed_n
                    && ($unsigned($random(seed)) % 100) < rx_src_busy) begin
                rx_st_valid <= 1'b1;
                rx_st_data <= with_junk(alt_in[alt_feed], alt_feed);
                rx_st_sop <= alt_in[alt_feed][134];
                rx_st_eop <= alt_in[alt_feed][133];
            end else begin
                rx_st_valid <= 1'b0;
                rx_st_data <= {4{junk(cycle)}};
                rx_st_sop <= 1'b0;
                rx_st_eop <= 1'b0;
            end
            if (rx_st_valid && rx_dut.skid.full)
                $fatal(1, "FAIL: RX skid FIFO overflow at cycle %0d", cycle);
        end
    end

    // RX sink: the core side, with random backpressure.
    integer rx_pause = 0;
    always @(posedge clk) begin
        if (!rst && rx_valid && rx_ready) begin
            if (core_seen >= core_seen_n)
                $fatal(1, "FAIL: RX produced an extra beat %h", rx_data);
            if ({rx_sop, rx_eop, rx_empty, rx_data} !== core_exp[core_seen])
                $fatal(1, "FAIL: RX beat %0d: got data=%h sop=%b eop=%b empty=%0d, expected data=%h sop=%b eop=%b empty=%0d",
                       core_seen, rx_data, rx_sop, rx_eop, rx_empty, core_exp[core_seen][127:0],
                       core_exp[core_seen][131], core_exp[core_seen][130], core_exp[core_seen][129:128]);
            core_seen = core_seen + 1;
        end
        // Besides random stalls, long pauses (the core's ingress FIFO full) that
        // fill the skid FIFO up to its threshold.
        if (rx_pause > 0) rx_pause = rx_pause - 1;
        else if (rx_sink_busy < 100 && ($unsigned($random(seed)) % 100) < 2)
            rx_pause = 16 + $unsigned($random(seed)) % 48;
        rx_ready <= rx_pause == 0 && ($unsigned($random(seed)) % 100) < rx_sink_busy;
    end

    // TX source: the core side, with pauses anywhere, also inside TLPs.
    always @(posedge clk) begin
        if (rst) begin
            tx_valid <= 1'b0;
        end else begin
            if (tx_valid && tx_ready) core_feed = core_feed + 1;
            if ((!tx_valid || tx_ready)) begin
                if (core_feed < core_feed_n && ($unsigned($random(seed)) % 100) < tx_src_busy) begin
                    tx_valid <= 1'b1;
                    {tx_sop, tx_eop, tx_empty, tx_data} <= core_in[core_feed];
                end else begin
                    tx_valid <= 1'b0;
                end
            end
        end
    end

    // Nothing left inside the TX adapter.
    wire tx_idle = !tx_valid && !tx_dut.o_valid && !tx_dut.flush && !tx_dut.f_valid && tx_dut.buffer.level == 0;

    // TX sink: the hard IP, ready latency TX_READY_LATENCY.
    reg [TX_READY_LATENCY-1:0] tx_ready_hist = 0;
    reg tx_in_tlp = 1'b0;
    always @(posedge clk) begin
        tx_ready_hist <= {tx_ready_hist, tx_st_ready};
        if (!rst) begin
            if (tx_st_valid && !tx_ready_hist[TX_READY_LATENCY-1])
                $fatal(1, "FAIL: tx_st_valid0 outside a ready cycle at cycle %0d", cycle);
            if (tx_in_tlp && tx_ready_hist[TX_READY_LATENCY-1] && !tx_st_valid)
                $fatal(1, "FAIL: idle ready cycle inside a TX TLP at cycle %0d", cycle);
            if (tx_st_valid) begin
                if (tx_st_sop == tx_in_tlp)
                    $fatal(1, "FAIL: TX sop=%b inside/outside a TLP at cycle %0d", tx_st_sop, cycle);
                tx_in_tlp <= !tx_st_eop;
                alt_got[alt_seen] = {tx_st_sop, tx_st_eop, tx_st_empty, 4'b1111, tx_st_data};
                if (alt_check) begin
                    if (alt_seen >= alt_n)
                        $fatal(1, "FAIL: TX produced an extra beat %h", tx_st_data);
                    if ({tx_st_sop, tx_st_eop, tx_st_empty, tx_st_data} !== {alt_exp[alt_seen][134:132], alt_exp[alt_seen][127:0]})
                        $fatal(1, "FAIL: TX beat %0d: got data=%h sop=%b eop=%b empty=%b, expected data=%h sop=%b eop=%b empty=%b",
                               alt_seen, tx_st_data, tx_st_sop, tx_st_eop, tx_st_empty, alt_exp[alt_seen][127:0],
                               alt_exp[alt_seen][134], alt_exp[alt_seen][133], alt_exp[alt_seen][132]);
                end
                alt_seen = alt_seen + 1;
            end
        end
        tx_st_ready <= ($unsigned($random(seed)) % 100) < tx_sink_busy;
    end

    // ------------------------------------------------------------- vector helpers
    task alt_beat(input sop, input eop, input empty, input [3:0] mask, input [127:0] data);
        begin
            alt_exp[alt_n] = {sop, eop, empty, mask, data};
            alt_n = alt_n + 1;
        end
    endtask

    task core_beat(input sop, input eop, input [1:0] empty, input [127:0] data);
        begin
            core_exp[core_n] = {sop, eop, empty, data};
            core_n = core_n + 1;
        end
    endtask

    task wait_until_done(input integer what, input integer limit);
        integer start;
        begin
            start = cycle;
            while ((what == 0 ? core_seen < core_seen_n : alt_seen < alt_seen_n) && cycle - start < limit)
                @(posedge clk);
            if (cycle - start >= limit)
                $fatal(1, "FAIL: timeout after %0d cycles (RX %0d/%0d core beats, TX %0d beats)",
                       limit, core_seen, core_seen_n, alt_seen);
        end
    endtask

    task reset_models;
        begin
            rst = 1'b1;
            repeat (4) @(posedge clk);
            alt_feed = 0; alt_feed_n = 0; core_seen = 0; core_seen_n = 0; rx_stalls = 0;
            core_feed = 0; core_feed_n = 0; alt_seen = 0; alt_seen_n = 0; alt_check = 0;
            rst = 1'b0;
            @(posedge clk);
        end
    endtask

    // Random TLP in the core format, appended to core_in and core_exp.
    task random_tlp;
        integer kind, len, i, ndw;
        reg [31:0] dw [0:131];
        reg [31:0] addr;
        begin
            kind = $unsigned($random(seed)) % 8;
            len = 1 + $unsigned($random(seed)) % (($unsigned($random(seed)) % 4 == 0) ? 128 : 24);
            addr = $random(seed) & 32'hfffffffc;
            case (kind)
                0: begin dw[0] = 32'h00000000 | (len & 10'h3ff); ndw = 3; end // MRd32
                1: begin dw[0] = 32'h20000000 | (len & 10'h3ff); ndw = 4; end // MRd64
                2: begin dw[0] = 32'h40000000 | (len & 10'h3ff); ndw = 3 + len; end // MWr32
                3: begin dw[0] = 32'h60000000 | (len & 10'h3ff); ndw = 4 + len; end // MWr64
                4: begin dw[0] = 32'h4a000000 | (len & 10'h3ff); ndw = 3 + len; end // CplD
                5: begin dw[0] = 32'h0a000000; ndw = 3; end                          // Cpl
                6: begin dw[0] = 32'h72000000 | (len & 10'h3ff); ndw = 4 + len; end // MsgD
                default: begin dw[0] = 32'h44000001; ndw = 4; end                   // CfgWr0
            endcase
            dw[1] = $random(seed);
            dw[2] = (kind == 4) ? {$random(seed)} & 32'hffffff7f : addr;
            dw[3] = $random(seed);
            for (i = (dw[0][29] ? 4 : 3); i < ndw; i = i + 1) dw[i] = $random(seed);
            for (i = 0; i < ndw; i = i + 4) begin
                core_in[core_n] = {i == 0, i + 4 >= ndw, (i + 4 >= ndw) ? 2'd0 - ndw[1:0] : 2'd0,
                                   (i + 3 < ndw) ? dw[i + 3] : 32'd0, (i + 2 < ndw) ? dw[i + 2] : 32'd0,
                                   (i + 1 < ndw) ? dw[i + 1] : 32'd0, dw[i]};
                core_exp[core_n] = core_in[core_n];
                core_n = core_n + 1;
            end
        end
    endtask

    integer i, rep, tlps;
    initial begin
        // ------------------------------------------------------- known answers
`include "hip_adapter_vectors.vh"

        for (rep = 0; rep < 4; rep = rep + 1) begin
            // Quiet and busy interfaces; rep 0 runs everything at full rate.
            rx_src_busy = rep == 0 ? 100 : 40 + 20 * rep;
            rx_sink_busy = rep == 0 ? 100 : 30 + 20 * rep;
            tx_src_busy = rep == 0 ? 100 : 50 + 15 * rep;
            tx_sink_busy = rep == 0 ? 100 : 30 + 20 * rep;

            reset_models;
            for (i = 0; i < alt_n; i = i + 1) alt_in[i] = alt_exp[i];
            alt_feed_n = alt_n;
            core_seen_n = core_n;
            wait_until_done(0, 20000);

            reset_models;
            for (i = 0; i < core_n; i = i + 1) core_in[i] = core_exp[i];
            alt_check = 1;
            core_feed_n = core_n;
            alt_seen_n = alt_n;
            wait_until_done(1, 20000);
            repeat (20) @(posedge clk);
            if (alt_seen != alt_n) $fatal(1, "FAIL: TX produced %0d beats, expected %0d", alt_seen, alt_n);
        end
        $display("known answers: %0d Altera beats and %0d core beats match in both directions", alt_n, core_n);

        // ----------------------------------------------------------- round trip
        // rep 0 runs at full rate and checks that the RX adapter never holds off
        // the hard IP: it must keep up with a saturated link.
        tlps = 0;
        for (rep = 0; rep < 6; rep = rep + 1) begin
            rx_src_busy = rep == 0 || rep >= 4 ? 100 : 50 + 10 * rep;
            rx_sink_busy = rep == 0 ? 100 : 40 + 12 * rep;
            tx_src_busy = rep == 0 ? 100 : 60 + 8 * rep;
            tx_sink_busy = rep == 0 ? 100 : 40 + 12 * rep;
            core_n = 0;
            for (i = 0; i < 60; i = i + 1) random_tlp;
            tlps = tlps + 60;

            reset_models;
            core_feed_n = core_n;
            i = cycle;
            while ((core_feed < core_feed_n || !tx_idle) && cycle - i < 200000) @(posedge clk);
            if (!tx_idle) $fatal(1, "FAIL: TX timeout");
            if (tx_in_tlp) $fatal(1, "FAIL: TX stopped inside a TLP");

            // Feed what the TX adapter sent to the RX adapter.
            for (i = 0; i < alt_seen; i = i + 1) alt_in[i] = alt_got[i];
            alt_n = alt_seen;
            reset_models;
            alt_feed_n = alt_n;
            core_seen_n = core_n;
            wait_until_done(0, 200000);
            if (rep == 0) begin
                if (rx_stalls != 0)
                    $fatal(1, "FAIL: RX adapter held off the hard IP for %0d cycles at full rate", rx_stalls);
                $display("full rate: %0d hard IP beats in, no RX stall", alt_n);
            end
        end
        $display("round trip: %0d random TLPs", tlps);
        $display("PASS");
        $finish;
    end
endmodule
