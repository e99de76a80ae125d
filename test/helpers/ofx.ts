import { Ofx } from 'ofx-data-extractor';

interface StatementJson {
  OFX: {
    BANKMSGSRSV1: {
      STMTTRNRS: {
        STMTRS: {
          CURDEF: string;
          BANKACCTFROM: Record<string, string>;
          BANKTRANLIST: { DTSTART: string; DTEND: string };
          LEDGERBAL?: { BALAMT: string; DTASOF: string };
        };
      };
    };
  };
}

/** An OFX statement as a well-kept reader that is not ours (ofx-data-extractor) sees it. */
export function readOfx(text: string) {
  const ofx = new Ofx(text);
  const statement = (ofx.toJson() as unknown as StatementJson).OFX.BANKMSGSRSV1.STMTTRNRS.STMTRS;
  return {
    validation: ofx.validate(),
    currency: statement.CURDEF,
    account: statement.BANKACCTFROM,
    period: [statement.BANKTRANLIST.DTSTART, statement.BANKTRANLIST.DTEND],
    transactions: ofx.getBankTransferList() as Array<Record<string, string>>,
    ledgerBalance: statement.LEDGERBAL,
  };
}
